//! The face every optional library shows outside its catalogue, emitted from one [`Face`] per
//! library: the facade's `Library` (the active backend's library), `LibraryError`, `LibraryInfo`,
//! `library_of`, `library` and `not_loaded` (into `src/generated/X.rs`, beside the free
//! functions), and the CUDA backend's `library()` loader (`backends/cuda/src/generated/X.rs`,
//! the module `anycuda_cuda::X`).
//!
//! What stays hand-written per library is what genuinely differs: `Library::info` (how each
//! side names its version), the vocabulary's search paths and `load` (`api/src/X.rs`), and the
//! HIP backend's rules (`backends/hip/src/X.rs`).

use crate::optional_lib::Lib;
use anyhow::Result;
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

fn ident(s: &str) -> Ident {
    Ident::new(s, Span::call_site())
}

fn docs<S: AsRef<str>>(lines: &[S]) -> Vec<TokenStream> {
    lines
        .iter()
        .map(|l| {
            let l = l.as_ref();
            let l = if l.is_empty() {
                String::new()
            } else {
                format!(" {l}")
            };
            quote!(#[doc = #l])
        })
        .collect()
}

/// What serves a library on the HIP backend.
pub enum HipSide<'a> {
    /// A library the HIP backend loads for its platform (`anycuda_hip::X::library(platform)`),
    /// of this type (`anycuda_hip::nccl::CollectiveLibrary`): the counterpart library (RCCL,
    /// hipBLAS, ...).
    Loaded(&'a str),
    /// The HIP backend itself (`anycuda_hip::HipBackend`): NVML over rocm-smi, nvJitLink's PTX
    /// linker. Its `LibraryError` has the older wording and no `#[non_exhaustive]` (kept: the
    /// public API does not change).
    Backend,
}

/// One field of `LibraryInfo`: its name (the type follows from it) and doc lines.
pub type InfoField<'a> = (&'a str, &'a [&'a str]);

/// `LibraryInfo`: what `Library::info` returns (the body of `info` is hand-written).
pub struct Info<'a> {
    /// The struct's doc; `None`: "What `library()` found: which library, where and which
    /// version."
    pub doc: Option<&'a str>,
    /// Its fields, in order.
    pub fields: &'a [InfoField<'a>],
}

/// The CUDA backend's loader of the library (`anycuda_cuda::X::library`).
pub struct CudaLoader<'a> {
    /// The module's doc (lines).
    pub doc: &'a [&'a str],
    /// The expression that loads it (`Result<Loaded<Table>, LoadError>`; `X` names
    /// `anycuda_api::X`).
    pub load: &'a str,
    /// A `Display` expression of the loaded `l` for the debug log (`X::version_string(l.version)`).
    pub describe: &'a str,
    /// The `# Errors` line of `library`.
    pub errors: &'a str,
    /// Whether an unavailable library is logged as a warning (else at debug level: NCCL, which
    /// most processes never use).
    pub warn_unavailable: bool,
    /// A statement run first, before the load (cuBLAS: cuBLASLt made global).
    pub before: Option<&'a str>,
}

/// The vocabulary's error type of a library (`api/src/generated/X_fns.rs`): `XError`, its
/// `code`, `Display`, `Debug` and `Error`, and `result()` on the status type.
pub struct ErrorFace<'a> {
    /// The error type (`NcclError`).
    pub error: &'a str,
    /// The status type (`ncclResult_t`).
    pub status: &'a str,
    /// Its success value (`ncclSuccess`).
    pub success: &'a str,
    /// What the header calls a status, in docs and messages (`code`, `status`, `result`).
    pub word: &'a str,
    /// The HIP-side library whose codes anycuda invents values for (`RCCL`), if any: the error
    /// then has `<lowercase>_code()` giving the raw value, and says so for an unknown code.
    pub counterpart: Option<&'a str>,
}

/// One optional library's face (see the module doc).
pub struct Face<'a> {
    /// What the library is, after "the active backend's" (`BLAS library`, `NVML`).
    pub what: &'a str,
    /// Doc of `Library::Cuda`.
    pub cuda_doc: &'a str,
    /// What serves it on the HIP backend, and the doc of `Library::Hip`.
    pub hip: HipSide<'a>,
    /// Doc of `Library::Hip`.
    pub hip_doc: &'a str,
    /// `library_of`'s doc (lines, its `# Errors` section included).
    pub library_of_doc: &'a [&'a str],
    /// `LibraryInfo`, if the library has one.
    pub info: Option<Info<'a>>,
    /// `not_loaded()`, what a free function answers when no library could be loaded: the
    /// status type and the pair in the reason (`cuBLAS or hipBLAS`). `None`: the library's
    /// fallbacks answer otherwise.
    pub not_loaded: Option<(&'a str, &'a str)>,
    /// The CUDA backend's loader.
    pub cuda: CudaLoader<'a>,
    /// The vocabulary's error type; `None`: the library's statuses are another's (cuBLASLt
    /// answers `cublasStatus_t`).
    pub error: Option<ErrorFace<'a>>,
}

impl Face<'_> {
    /// The doc of the facade's generated file.
    pub fn facade_doc(&self, lib: &Lib<'_>) -> String {
        match self.hip {
            HipSide::Loaded(_) => format!(
                "The {} API's free functions, dispatched to the active backend's {}.",
                lib.name, self.what
            ),
            HipSide::Backend => format!(
                "The {} API's free functions, dispatched to the active backend.",
                lib.name
            ),
        }
    }
}

fn info_type(field: &str) -> Result<TokenStream> {
    Ok(match field {
        "name" | "abi" => quote!(&'static str),
        "path" | "version_string" => quote!(String),
        "version" => quote!(i32),
        "entry_points" => quote!((usize, usize)),
        other => anyhow::bail!("LibraryInfo field {other}: no type known for it"),
    })
}

/// The facade's items of the face (`src/generated/X.rs`).
pub fn facade_items(lib: &Lib<'_>, face: &Face<'_>) -> Result<Vec<syn::Item>> {
    let module = ident(lib.module);
    let table = ident(lib.table);
    let name = lib.name;
    let what = face.what;
    let loaded = matches!(face.hip, HipSide::Loaded(_));
    let lib_doc = docs(&[
        format!(
            "The active backend's {what}. `Copy`: libraries load once per process and are never"
        ),
        format!(
            "unloaded. It implements [`{}`] by dispatching to the backend{}.",
            lib.trait_name,
            if loaded { "'s library" } else { "" }
        ),
    ]);
    let (cuda_doc, hip_doc) = (docs(&[face.cuda_doc]), docs(&[face.hip_doc]));
    let hip_ty: syn::Type = match face.hip {
        HipSide::Loaded(t) => syn::parse_str(t)?,
        HipSide::Backend => syn::parse_quote!(anycuda_hip::HipBackend),
    };
    let mut items: Vec<syn::Item> = vec![
        syn::parse_quote!(
            use crate::{Backend, LoadError};
        ),
        syn::parse_quote! {
            #(#lib_doc)*
            #[derive(Clone, Copy, Debug)]
            pub enum Library {
                #(#cuda_doc)*
                #[cfg(feature = "backend-cuda")]
                Cuda(&'static #table),
                #(#hip_doc)*
                #[cfg(feature = "backend-hip")]
                Hip(&'static #hip_ty),
            }
        },
    ];
    let (err_doc, non_exhaustive, no_backend_doc, msg, load_doc) = if loaded {
        (
            format!("Why no {what} can be used."),
            quote!(#[non_exhaustive]),
            "No GPU backend could be selected, so there is no library to choose.",
            format!("no usable GPU backend for {name}: {{0}}"),
            format!("The backend's {what} did not load (the error names every path tried)."),
        )
    } else {
        (
            format!("Why {name} cannot be used."),
            quote!(),
            "No GPU backend could be selected.",
            format!("no usable backend for {name}: {{0}}"),
            "The library did not load (the error names every path tried).".to_string(),
        )
    };
    let (err_doc, no_backend_doc, load_doc) =
        (docs(&[err_doc]), docs(&[no_backend_doc]), docs(&[load_doc]));
    items.push(syn::parse_quote! {
        #(#err_doc)*
        #[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
        #non_exhaustive
        pub enum LibraryError {
            #(#no_backend_doc)*
            #[error(#msg)]
            NoBackend(String),
            #(#load_doc)*
            #[error(transparent)]
            Load(#[from] LoadError),
        }
    });
    if let Some(info) = &face.info {
        let doc = docs(&[info
            .doc
            .unwrap_or("What `library()` found: which library, where and which version.")]);
        let mut fields = Vec::new();
        for (f, d) in info.fields {
            let (n, t, d) = (ident(f), info_type(f)?, docs(d));
            fields.push(quote!(#(#d)* pub #n: #t));
        }
        items.push(syn::parse_quote! {
            #(#doc)*
            #[derive(Clone, Debug, PartialEq, Eq)]
            pub struct LibraryInfo { #(#fields),* }
        });
    }
    let of_doc = docs(face.library_of_doc);
    let hip_arm = if loaded {
        quote! {
            anycuda_hip::#module::library(h.platform())
                .map(Library::Hip)
                .map_err(|e| LibraryError::Load(e.clone()))
        }
    } else {
        quote!(Ok(Library::Hip(h)))
    };
    items.push(syn::parse_quote! {
        #(#of_doc)*
        pub fn library_of(b: Backend) -> Result<Library, LibraryError> {
            match b {
                #[cfg(feature = "backend-cuda")]
                Backend::Cuda(_) => anycuda_cuda::#module::library()
                    .map(|l| Library::Cuda(&l.table))
                    .map_err(|e| LibraryError::Load(e.clone())),
                #[cfg(feature = "backend-hip")]
                Backend::Hip(h) => #hip_arm,
            }
        }
    });
    let library_doc =
        format!(" The active backend's {what} (what the free functions of this module call).");
    items.push(syn::parse_quote! {
        #[doc = #library_doc]
        ///
        /// # Errors
        /// [`LibraryError::NoBackend`] when no backend is usable, else [`LibraryError::Load`].
        #[inline]
        pub fn library() -> Result<Library, LibraryError> {
            match crate::select::active() {
                Some(b) => library_of(b),
                None => Err(LibraryError::NoBackend(match crate::backend() {
                    Ok(s) => format!("{s:?}"),
                    Err(e) => e.to_string(),
                })),
            }
        }
    });
    if let Some((status, pair)) = face.not_loaded {
        let status = ident(status);
        let why = format!(
            "no {what} loaded ({pair}): anycuda::{}::library() says why and where it looked",
            lib.module
        );
        items.push(syn::parse_quote! {
            /// What a free function answers when no library could be loaded.
            pub(crate) fn not_loaded() -> #status {
                refuse(#why)
            }
        });
    }
    Ok(items)
}

/// The vocabulary's error items ([`ErrorFace`]), for `api/src/generated/X_fns.rs`.
pub fn error_items(lib: &Lib<'_>, face: &Face<'_>) -> Vec<syn::Item> {
    let Some(e) = &face.error else {
        return Vec::new();
    };
    let (error, status, success) = (ident(e.error), ident(e.status), ident(e.success));
    let (name, word) = (lib.name, e.word);
    let doc = format!(
        " A failed {name} call (`{}` other than `{}`).",
        e.status, e.success
    );
    let error_name = e.error;
    let debug_fmt = format!("{error_name}({{:?}})");
    let unknown = format!("{}({{v}}): unknown {word}", e.status);
    let (invented_fn, display) = match e.counterpart {
        Some(hip) => {
            let f = ident(&format!("{}_code", hip.to_ascii_lowercase()));
            let fdoc = format!(
                " For a code invented for {hip} (hallucinated or unknown), the raw {hip} value."
            );
            let msg = format!(
                "{}({{v}}): {hip} {word} {{raw}}, unknown when anycuda's tables were generated",
                e.status
            );
            (
                quote! {
                    #[doc = #fdoc]
                    pub fn #f(self) -> Option<i64> {
                        use crate::hallucinated::{classify, Invented};
                        match classify(self.0.to_i64())? {
                            Invented::Named(v) | Invented::Unknown(v) => Some(v),
                        }
                    }
                },
                quote! {
                    match (self.0.info(), crate::hallucinated::classify(v)) {
                        (Some(c), _) if c.description.is_empty() => write!(f, "{} ({v})", c.name),
                        (Some(c), _) => write!(f, "{} ({v}): {}", c.name, c.description),
                        (None, Some(crate::hallucinated::Invented::Unknown(raw))) => write!(f, #msg),
                        (None, _) => write!(f, #unknown),
                    }
                },
            )
        }
        None => (
            quote!(),
            quote! {
                match self.0.info() {
                    Some(c) if c.description.is_empty() => write!(f, "{} ({v})", c.name),
                    Some(c) => write!(f, "{} ({v}): {}", c.name, c.description),
                    None => write!(f, #unknown),
                }
            },
        ),
    };
    let ok_doc = format!(" `Ok(())` for `{}`, else the error.", e.success);
    let every = format!(" Every {word} but `{}`.", e.success);
    vec![
        syn::parse_quote! {
            #[doc = #doc]
            #[derive(Clone, Copy, PartialEq, Eq, Hash)]
            pub struct #error(pub #status);
        },
        syn::parse_quote! {
            impl #error {
                /// The code carried by this error.
                pub fn code(self) -> #status {
                    self.0
                }
                #invented_fn
            }
        },
        syn::parse_quote! {
            impl ::core::fmt::Display for #error {
                fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    use crate::enums::CudaEnum as _;
                    let v = self.0.to_i64();
                    #display
                }
            }
        },
        syn::parse_quote! {
            impl ::core::fmt::Debug for #error {
                fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    write!(f, #debug_fmt, self.0)
                }
            }
        },
        syn::parse_quote!(impl std::error::Error for #error {}),
        syn::parse_quote! {
            impl #status {
                #[doc = #ok_doc]
                ///
                /// # Errors
                #[doc = #every]
                #[inline]
                pub fn result(self) -> Result<(), #error> {
                    if self == Self::#success {
                        Ok(())
                    } else {
                        Err(#error(self))
                    }
                }
            }
        },
    ]
}

/// The CUDA backend's module of the library (`backends/cuda/src/generated/X.rs`).
pub fn cuda_loader_module(lib: &Lib<'_>, face: &Face<'_>, inputs: &str) -> Result<String> {
    let c = &face.cuda;
    let module = ident(lib.module);
    let table = ident(lib.table);
    let name = lib.name;
    let search = format!("{}_SEARCH", lib.module.to_ascii_uppercase());
    let statik = ident(&lib.module.to_ascii_uppercase());
    let doc = [
        format!(" {name}, loaded on first use (see [`anycuda_api::{module}::{search}`] for where it is looked"),
        " for), or why it could not be.".to_string(),
        String::new(),
        " # Errors".to_string(),
        format!(" {}", c.errors),
    ];
    let load: syn::Expr = syn::parse_str(c.load)?;
    let describe: syn::Expr = syn::parse_str(c.describe)?;
    let before: Vec<syn::Stmt> = match c.before {
        Some(s) => vec![syn::parse_str(s)?],
        None => Vec::new(),
    };
    let loaded_msg = format!("cuda {module}: {{}} ({{}})");
    let unavailable = format!("cuda {module}: unavailable: {{e}}");
    let level = ident(if c.warn_unavailable { "warn" } else { "debug" });
    let items: Vec<syn::Item> = vec![
        syn::parse_quote!(
            use anycuda_api::error::LoadError;
        ),
        syn::parse_quote!(
            use anycuda_api::loader::Loaded;
        ),
        syn::parse_quote!(use anycuda_api::#module::{self, #table};),
        syn::parse_quote!(
            use std::sync::OnceLock;
        ),
        syn::parse_quote! {
            #(#[doc = #doc])*
            pub fn library() -> Result<&'static Loaded<#table>, &'static LoadError> {
                static #statik: OnceLock<Result<Loaded<#table>, LoadError>> = OnceLock::new();
                #statik
                    .get_or_init(|| {
                        #(#before)*
                        let l = #load;
                        match &l {
                            Ok(l) => log::debug!(#loaded_msg, l.path, #describe),
                            Err(e) => log::#level!(#unavailable),
                        }
                        l
                    })
                    .as_ref()
            }
        },
    ];
    crate::emit::render(inputs, &c.doc.join("\n"), &items)
}

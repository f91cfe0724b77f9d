//! The emitter: a parsed [`Module`] to HIP C++ source (after [`SUPPORT_HEADER`]).

use super::ast::{Function, Inst, Linkage, Module, Operand, Param, Space, Stmt, Ty, VarDecl};
use super::header::SUPPORT_HEADER;
use super::PtxError;
use std::collections::{HashMap, HashSet};
use std::fmt::Write;

mod matrix;
mod texture;

/// What a name in a body refers to.
#[derive(Clone, Copy, PartialEq)]
enum Sym {
    Reg(Ty),
    Var(Space),
    Func,
}

/// The C++ name of a symbol the loader looks up by its PTX name (a kernel, a `.visible` function
/// or variable): the name itself whenever it is a C identifier, even with a prefix [`ident`]
/// reserves (`cuModuleGetFunction(m, "x_update")` must find `x_update`); else [`ident`]'s
/// escape. A kernel named like one of the support header's `ptx_` helpers fails to compile:
/// loud, never a silent clash.
pub(crate) fn symbol(name: &str) -> String {
    let c_ident = name
        .bytes()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
        && name.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_');
    if c_ident {
        name.to_owned()
    } else {
        ident(name)
    }
}

/// A name as a C++ identifier: kept when it is one (and not reserved here), else escaped
/// (`%r1` -> `x_25r1`); escaping is injective, so names never collide.
pub(crate) fn ident(name: &str) -> String {
    let plain = name
        .bytes()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
        && name.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_')
        && !name.starts_with("ptx_")
        && !name.starts_with("x_");
    if plain {
        return name.to_owned();
    }
    let mut s = String::from("x_");
    for c in name.bytes() {
        if c.is_ascii_alphanumeric() {
            s.push(c as char);
        } else {
            let _ = write!(s, "_{c:02x}");
        }
    }
    s
}

fn ctype(t: Ty) -> &'static str {
    match t {
        Ty::Pred => "bool",
        Ty::B8 | Ty::U8 => "ptx_u8",
        Ty::S8 => "ptx_s8",
        Ty::B16 | Ty::U16 | Ty::F16 | Ty::Bf16 => "ptx_u16",
        Ty::S16 => "ptx_s16",
        Ty::B32 | Ty::U32 | Ty::F16x2 | Ty::Bf16x2 => "ptx_u32",
        Ty::S32 => "ptx_s32",
        Ty::B64 | Ty::U64 | Ty::B128 => "ptx_u64",
        Ty::S64 => "ptx_s64",
        Ty::F32 => "float",
        Ty::F64 => "double",
    }
}

/// The unsigned C type of an integer size.
fn utype(size: u32) -> &'static str {
    match size {
        1 => "ptx_u8",
        2 => "ptx_u16",
        4 => "ptx_u32",
        _ => "ptx_u64",
    }
}
fn stype(size: u32) -> &'static str {
    match size {
        1 => "ptx_s8",
        2 => "ptx_s16",
        4 => "ptx_s32",
        _ => "ptx_s64",
    }
}

/// Converts `e`, a value of C type `from`, to type `to`: same size reinterprets the bits, a
/// narrower integer target truncates, a wider one extends (sign-extending when `from` is
/// signed).
fn conv(e: &str, from: Ty, to: Ty) -> String {
    if ctype(from) == ctype(to) {
        return e.to_owned();
    }
    if to == Ty::Pred {
        return format!("(({e}) != 0)");
    }
    if from == Ty::Pred {
        return conv(&format!("(ptx_u32)({e})"), Ty::U32, to);
    }
    let (ib, fi) = match from {
        Ty::F32 => (format!("ptx_bits32({e})"), Ty::B32),
        Ty::F64 => (format!("ptx_bits64({e})"), Ty::B64),
        _ => (e.to_owned(), from),
    };
    let (fs, ts) = (fi.size(), to.size());
    let int = if ts <= fs {
        format!("(({}){ib})", utype(ts))
    } else if fi.signed() {
        format!("(({})({})({ib}))", utype(ts), stype(fs))
    } else {
        format!("(({})({})({ib}))", utype(ts), utype(fs))
    };
    match to {
        Ty::F32 => format!("ptx_f32_of((ptx_u32){int})"),
        Ty::F64 => format!("ptx_f64_of((ptx_u64){int})"),
        _ => format!("(({}){int})", ctype(to)),
    }
}

fn mode_of(mods: &[&str]) -> Option<u32> {
    mods.iter().find_map(|m| match *m {
        "rn" | "rni" => Some(0),
        "rz" | "rzi" => Some(1),
        "rm" | "rmi" => Some(2),
        "rp" | "rpi" => Some(3),
        _ => None,
    })
}

struct Fx {
    syms: HashMap<String, Sym>,
    /// Module-scope names (and the body's own, which shadow them) to their C++ identifiers.
    names: HashMap<String, String>,
    /// Functions this module declares that no module defines (calls to them are refused).
    undefined: HashSet<String>,
    out: String,
    indent: usize,
    entry: bool,
}

/// Why a module-scope name cannot be linked.
fn link_error(instruction: String, line: u32, reason: String) -> PtxError {
    PtxError::Unsupported {
        instruction,
        line,
        reason,
    }
}

/// Whether a module-scope variable is the module's own (renamed when another module uses the
/// same name): internal ones, and `.extern .shared` arrays (each is the block's dynamic shared
/// memory, whatever its name).
fn own_var(v: &VarDecl) -> bool {
    v.linkage == Linkage::Internal || (v.external && v.space == Space::Shared)
}

/// Emits the C++ for several modules linked into one translation: the support header once,
/// then every module's variables, every function's prototype, and every body. `.visible` and
/// `.weak` names are shared by all modules (an `.extern` declaration is the definition of
/// another module); a module's internal names are renamed `ptx_m<k>_...` when another module
/// uses the same name, so they never collide. On error: the index of the failing module.
pub(crate) fn emit_all(modules: &[Module]) -> Result<String, (usize, PtxError)> {
    // Which module defines each shared (visible or weak) name; the first weak one wins.
    let mut defs: HashMap<&str, (usize, bool)> = HashMap::new(); // name -> (module, is a function)
    let mut skip: HashSet<(usize, &str)> = HashSet::new(); // weak duplicates, not emitted
    let mut users: HashMap<&str, usize> = HashMap::new(); // how many modules name it
    for (k, m) in modules.iter().enumerate() {
        let mut seen = HashSet::new();
        let defined = m
            .functions
            .iter()
            .filter(|f| f.body.is_some())
            .map(|f| (f.name.as_str(), f.linkage, true, f.line, f.entry))
            .chain(
                m.vars
                    .iter()
                    .filter(|v| !v.external)
                    .map(|v| (v.name.as_str(), v.linkage, false, v.line, false)),
            );
        for (name, linkage, func, line, entry) in defined {
            let shared = matches!(linkage, Linkage::Visible | Linkage::Weak) || entry;
            if !shared {
                continue;
            }
            match defs.get(name) {
                Some(&(j, _)) if j != k && linkage == Linkage::Weak => {
                    skip.insert((k, name));
                }
                Some(&(j, _)) if j != k => {
                    return Err((
                        k,
                        link_error(
                            name.to_owned(),
                            line,
                            format!("`{name}` is also defined by module {j}"),
                        ),
                    ))
                }
                _ => {
                    defs.insert(name, (k, func));
                }
            }
        }
        for n in m
            .functions
            .iter()
            .map(|f| f.name.as_str())
            .chain(m.vars.iter().map(|v| v.name.as_str()))
        {
            if seen.insert(n) {
                *users.entry(n).or_default() += 1;
            }
        }
    }
    let mut out = String::from(SUPPORT_HEADER);
    let mut scopes = Vec::new();
    for (k, m) in modules.iter().enumerate() {
        let at = |e: PtxError| (k, e);
        if modules.len() > 1 {
            let _ = writeln!(out, "\n// ---- translated module {k} ----");
        } else {
            out.push_str("\n// ---- translated module ----\n");
        }
        let rename = |name: &str| -> String {
            if users.get(name).copied().unwrap_or(0) > 1 {
                format!("ptx_m{k}_{}", ident(name))
            } else {
                ident(name)
            }
        };
        let mut syms: HashMap<String, Sym> = HashMap::new();
        let mut names: HashMap<String, String> = HashMap::new();
        let mut undefined = HashSet::new();
        for v in &m.vars {
            syms.insert(v.name.clone(), Sym::Var(v.space));
            if own_var(v) {
                let n = rename(&v.name);
                out.push_str(&var_decl(v, &n).map_err(at)?);
                names.insert(v.name.clone(), n);
                continue;
            }
            names.insert(v.name.clone(), symbol(&v.name));
            if v.external {
                match defs.get(v.name.as_str()) {
                    Some((_, false)) => {}
                    _ => {
                        return Err(at(link_error(
                            format!(".extern {} {}", space_name(v.space), v.name),
                            v.line,
                            format!("`{}` is declared but no module defines it", v.name),
                        )))
                    }
                }
            } else if !skip.contains(&(k, v.name.as_str())) {
                out.push_str(&var_decl(v, &symbol(&v.name)).map_err(at)?);
            }
        }
        for f in &m.functions {
            syms.insert(f.name.clone(), Sym::Func);
            let shared = f.entry
                || matches!(
                    f.linkage,
                    Linkage::Visible | Linkage::Weak | Linkage::Extern
                );
            names.insert(
                f.name.clone(),
                if shared {
                    symbol(&f.name)
                } else {
                    rename(&f.name)
                },
            );
            let defined_here = m
                .functions
                .iter()
                .any(|g| g.name == f.name && g.body.is_some());
            let defined_shared = matches!(defs.get(f.name.as_str()), Some((_, true)));
            if !(defined_here || (shared && defined_shared)) {
                undefined.insert(f.name.clone());
            }
        }
        scopes.push((syms, names, undefined));
    }
    // Prototypes first, so calls may precede definitions (and cross modules).
    for (k, m) in modules.iter().enumerate() {
        for f in m.functions.iter().filter(|f| !f.entry && f.body.is_some()) {
            if skip.contains(&(k, f.name.as_str())) {
                continue;
            }
            let _ = writeln!(out, "{};", signature(f, &scopes[k].1[&f.name]));
        }
    }
    for (k, m) in modules.iter().enumerate() {
        let (syms, names, undefined) = &scopes[k];
        for f in &m.functions {
            let Some(body) = &f.body else { continue };
            if skip.contains(&(k, f.name.as_str())) {
                continue;
            }
            let mut fx = Fx {
                syms: syms.clone(),
                names: names.clone(),
                undefined: undefined.clone(),
                out: String::new(),
                indent: 1,
                entry: f.entry,
            };
            for p in f.params.iter().chain(&f.rets) {
                fx.syms.insert(p.name.clone(), Sym::Var(Space::Param));
                fx.names.insert(p.name.clone(), ident(&p.name));
            }
            let _ = writeln!(fx.out, "{} {{", signature(f, &names[&f.name]));
            // PTX's carry flag (CC.CF) for add.cc/addc/sub.cc/subc/mad.cc/madc chains.
            fx.out.push_str("  ptx_u32 ptx_cf = 0; (void)ptx_cf;\n");
            fx.stmts(body).map_err(|e| (k, e))?;
            fx.out.push_str("}\n");
            out.push_str(&fx.out);
        }
    }
    Ok(out)
}

fn space_name(s: Space) -> &'static str {
    match s {
        Space::Global => ".global",
        Space::Shared => ".shared",
        Space::Const => ".const",
        Space::Local => ".local",
        Space::Param => ".param",
    }
}

fn param_type(p: &Param) -> String {
    let align = p.align.unwrap_or(p.ty.size()).max(1);
    match p.array {
        None if !p.ty.float() || p.ty == Ty::F32 || p.ty == Ty::F64 => ctype(p.ty).to_owned(),
        _ => format!("ptx_bytes<{}, {align}>", p.size().max(1)),
    }
}

fn signature(f: &Function, name: &str) -> String {
    let mut s = String::new();
    if f.entry {
        // `.maxntid`, else CUDA's limit of 1024 threads: any kernel launches with blocks up to
        // that size, as NVIDIA's PTX does. hipRTC assumes 1024 anyway; NVRTC (HIP's NVIDIA
        // platform) would otherwise spend registers past what a 1024-thread block can have
        // (CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES in candle's unary kernels, H200 2026-11-29).
        let bounds = format!("__launch_bounds__({}) ", f.max_threads.unwrap_or(1024));
        let _ = write!(s, "extern \"C\" __global__ void {bounds}{name}(");
    } else {
        let _ = write!(s, "static __device__ void {name}(");
    }
    let mut first = true;
    for r in &f.rets {
        if !first {
            s.push_str(", ");
        }
        first = false;
        let _ = write!(
            s,
            "ptx_bytes<{}, {}>& {}",
            r.size().max(1),
            r.align.unwrap_or(r.ty.size()).max(1),
            ident(&r.name)
        );
    }
    for p in &f.params {
        if !first {
            s.push_str(", ");
        }
        first = false;
        let t = if f.entry {
            param_type(p)
        } else {
            format!(
                "ptx_bytes<{}, {}>",
                p.size().max(1),
                p.align.unwrap_or(p.ty.size()).max(1)
            )
        };
        let _ = write!(s, "{t} {}", ident(&p.name));
    }
    s.push(')');
    s
}

fn literal(o: &Operand, ty: Ty, line: u32) -> Result<String, PtxError> {
    Ok(match o {
        Operand::Int(v) => {
            let bits = (*v as u128 as u64)
                & if ty.size() >= 8 {
                    u64::MAX
                } else {
                    (1u64 << (8 * ty.size())) - 1
                };
            match ty {
                Ty::F32 => format!("ptx_f32_of({bits}u)"),
                Ty::F64 => format!("ptx_f64_of({bits}ull)"),
                Ty::Pred => format!("{}", *v != 0),
                _ => format!("(({}){bits}ull)", ctype(ty)),
            }
        }
        Operand::FloatBits { bits, double } => match (ty, double) {
            (Ty::F32, false) => format!("ptx_f32_of({bits:#x}u)"),
            (Ty::F64, true) => format!("ptx_f64_of({bits:#x}ull)"),
            (Ty::F64, false) => format!("((double)ptx_f32_of({bits:#x}u))"),
            (Ty::F32, true) => format!("((float)ptx_f64_of({bits:#x}ull))"),
            (_, _) => format!("(({}){bits:#x}ull)", ctype(ty)),
        },
        Operand::Float(s) => match ty {
            Ty::F32 => format!("((float)({s}))"),
            Ty::F64 => format!("((double)({s}))"),
            _ => {
                return Err(PtxError::Syntax {
                    line,
                    column: 1,
                    message: format!("float literal {s} for an integer operand"),
                })
            }
        },
        _ => unreachable_operand(line)?,
    })
}

fn unreachable_operand<T>(line: u32) -> Result<T, PtxError> {
    Err(PtxError::Syntax {
        line,
        column: 1,
        message: "unexpected operand kind".into(),
    })
}

fn var_decl(v: &VarDecl, name: &str) -> Result<String, PtxError> {
    let q = match v.space {
        Space::Global => "__device__ ",
        Space::Const => "__constant__ ",
        Space::Shared if v.external => "extern __shared__ ",
        Space::Shared => "__shared__ ",
        Space::Local | Space::Param => "",
    };
    if matches!(v.ty, Ty::F16 | Ty::Bf16 | Ty::F16x2 | Ty::Bf16x2 | Ty::B128) && v.init.is_some() {
        return Err(PtxError::Unsupported {
            instruction: format!("initialized {:?} variable", v.ty),
            line: v.line,
            reason: "half-precision and .b128 initializers are not translated yet".into(),
        });
    }
    let align = v.align.unwrap_or(v.ty.size()).max(v.ty.size()).max(1);
    let dims = match v.array {
        None => String::new(),
        Some(None) => "[]".into(),
        Some(Some(n)) => format!("[{}]", n.max(1)),
    };
    let mut s = if v.space == Space::Param {
        let size = u64::from(v.ty.size())
            .saturating_mul(v.array.flatten().unwrap_or(1))
            .max(1);
        format!(
            "ptx_bytes<{size}, {}> {}",
            v.align.unwrap_or(v.ty.size()).max(1),
            name
        )
    } else {
        format!(
            "{q}{} {}{dims} __attribute__((aligned({align})))",
            ctype(v.ty),
            name
        )
    };
    if let Some(init) = &v.init {
        if v.space == Space::Shared || v.space == Space::Local {
            return Err(PtxError::Unsupported {
                instruction: "initializer".into(),
                line: v.line,
                reason: "PTX allows initializers only in .global and .const".into(),
            });
        }
        let mut vals = Vec::new();
        for o in init {
            match o {
                Operand::Name(n) => {
                    return Err(PtxError::Unsupported {
                        instruction: format!("address initializer `{n}`"),
                        line: v.line,
                        reason: "initializers holding addresses are not translated yet".into(),
                    })
                }
                o => vals.push(literal(o, v.ty, v.line)?),
            }
        }
        if v.array.is_some() {
            let _ = write!(s, " = {{{}}}", vals.join(", "));
        } else if let Some(x) = vals.first() {
            let _ = write!(s, " = {x}");
        }
    }
    s.push_str(";\n");
    Ok(s)
}

fn unsupported<T>(i: &Inst, reason: &str) -> Result<T, PtxError> {
    Err(PtxError::Unsupported {
        instruction: i.opcode.clone(),
        line: i.line,
        reason: reason.to_owned(),
    })
}

impl Fx {
    /// The C++ identifier of a variable or function name in scope.
    fn cname(&self, n: &str) -> String {
        self.names.get(n).cloned().unwrap_or_else(|| ident(n))
    }

    fn line(&mut self, s: &str) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    fn stmts(&mut self, body: &[Stmt]) -> Result<(), PtxError> {
        // Declarations first (so gotos never jump over one), then the code.
        for s in body {
            match s {
                Stmt::Reg(t, names) => {
                    for n in names {
                        self.syms.insert(n.clone(), Sym::Reg(*t));
                        // Zeroed at function scope; uninitialised in a nested block, so a goto
                        // may jump past it (C++ forbids jumping past an initialisation).
                        let init = match (*t == Ty::Pred, self.indent == 1) {
                            (_, false) => "",
                            (true, true) => " = false",
                            (false, true) => " = 0",
                        };
                        let l = format!("{} {}{init};", ctype(*t), ident(n));
                        self.line(&l);
                    }
                }
                Stmt::Var(v) => {
                    self.syms.insert(v.name.clone(), Sym::Var(v.space));
                    self.names.insert(v.name.clone(), ident(&v.name));
                    let d = var_decl(v, &ident(&v.name))?;
                    self.line(d.trim_end());
                }
                _ => {}
            }
        }
        for s in body {
            match s {
                Stmt::Reg(..) | Stmt::Var(_) => {}
                Stmt::Label(l) => {
                    let l = format!("{}: ;", ident(l));
                    self.line(&l);
                }
                Stmt::Block(b) => {
                    self.line("{");
                    self.indent += 1;
                    let saved = (self.syms.clone(), self.names.clone());
                    self.stmts(b)?;
                    (self.syms, self.names) = saved;
                    self.indent -= 1;
                    self.line("}");
                }
                Stmt::Inst(i) => {
                    let code = self.inst(i)?;
                    let code = match &i.guard {
                        Some((neg, p)) => {
                            let pv = self.reg(p, Ty::Pred, i)?;
                            format!("if ({}{pv}) {{ {code} }}", if *neg { "!" } else { "" })
                        }
                        None => code,
                    };
                    self.line(&format!("{code} // {}: {}", i.line, i.opcode));
                }
            }
        }
        Ok(())
    }

    /// A register read as type `t`.
    fn reg(&self, name: &str, t: Ty, i: &Inst) -> Result<String, PtxError> {
        match self.syms.get(name) {
            Some(Sym::Reg(rt)) => Ok(conv(&ident(name), *rt, t)),
            _ => match special(name) {
                Some(e) => Ok(conv(
                    &e,
                    if name.starts_with("%clock64") {
                        Ty::U64
                    } else {
                        Ty::U32
                    },
                    t,
                )),
                None if name.starts_with('%') || name == "WARP_SZ" => unsupported(
                    i,
                    &format!("the register `{name}` is not declared or not supported"),
                ),
                None => unsupported(i, &format!("`{name}` is not a register")),
            },
        }
    }

    /// A source operand as a value of type `t`.
    fn src(&self, o: &Operand, t: Ty, i: &Inst) -> Result<String, PtxError> {
        match o {
            Operand::Name(n) => match self.syms.get(n.as_str()) {
                Some(Sym::Var(space)) => {
                    // The address of a variable, in its own window.
                    let a = format!("((ptx_u64)(&{}))", self.cname(n));
                    let a = if *space == Space::Shared {
                        format!("ptx_to_shared({a})")
                    } else {
                        a
                    };
                    Ok(conv(&a, Ty::U64, t))
                }
                Some(Sym::Func) => unsupported(i, "function addresses are not translated yet"),
                _ => self.reg(n, t, i),
            },
            Operand::Not(n) if t == Ty::Pred => Ok(format!("(!{})", self.reg(n, Ty::Pred, i)?)),
            Operand::Int(_) | Operand::FloatBits { .. } | Operand::Float(_) => {
                literal(o, t, i.line)
            }
            _ => unsupported(i, "this operand form is not supported here"),
        }
    }

    /// A destination register: its C name and type.
    fn dst(&self, o: &Operand, i: &Inst) -> Result<(String, Ty), PtxError> {
        match o {
            Operand::Name(n) => match self.syms.get(n.as_str()) {
                Some(Sym::Reg(t)) => Ok((ident(n), *t)),
                _ => unsupported(i, &format!("`{n}` is not a writable register")),
            },
            _ => unsupported(i, "the destination must be a register"),
        }
    }

    /// `dst = value` where value has type `t`.
    fn assign(&self, o: &Operand, value: &str, t: Ty, i: &Inst) -> Result<String, PtxError> {
        if *o == Operand::Sink {
            return Ok(format!("(void)({value});"));
        }
        let (d, dt) = self.dst(o, i)?;
        Ok(format!("{d} = {};", conv(&format!("({value})"), t, dt)))
    }

    /// A pointer expression (`unsigned char*`) for an address operand in `space`.
    fn addr(&self, o: &Operand, space: Option<Space>, i: &Inst) -> Result<String, PtxError> {
        let Operand::Addr { base, offset } = o else {
            return unsupported(i, "expected an address operand");
        };
        let base_ptr = match base {
            None => format!("((unsigned char*)(ptx_u64){offset}ll)"),
            Some(b) => match self.syms.get(b.as_str()) {
                Some(Sym::Var(_)) => {
                    format!("((unsigned char*)&{} + {offset}ll)", self.cname(b))
                }
                Some(Sym::Reg(rt)) => {
                    let v = conv(&ident(b), *rt, Ty::U64);
                    let v = if space == Some(Space::Shared) {
                        format!("ptx_from_shared({v})")
                    } else {
                        v
                    };
                    format!("((unsigned char*)({v}) + {offset}ll)")
                }
                _ => return unsupported(i, &format!("unknown address base `{b}`")),
            },
        };
        Ok(base_ptr)
    }

    fn inst(&self, i: &Inst) -> Result<String, PtxError> {
        let parts: Vec<&str> = i.opcode.split('.').collect();
        let op = parts[0];
        let mods = &parts[1..];
        let types: Vec<Ty> = mods.iter().filter_map(|m| Ty::from_suffix(m)).collect();
        let has = |m: &str| mods.contains(&m);
        let o = &i.operands;
        let need = |n: usize| -> Result<(), PtxError> {
            if o.len() == n {
                Ok(())
            } else {
                Err(PtxError::Syntax {
                    line: i.line,
                    column: i.col,
                    message: format!("`{}` takes {n} operands, found {}", i.opcode, o.len()),
                })
            }
        };
        let t = types.first().copied();
        if types.contains(&Ty::B128) {
            return unsupported(i, ".b128 operations are not translated yet");
        }
        if matches!(op, "mma" | "ldmatrix" | "stmatrix" | "cp") {
            // Warp-wide matrix instructions and cp.async (emit/matrix.rs): before the
            // half-precision check, since their .f16/.bf16 operands are packed registers.
            return self.matrix(i, op, mods);
        }
        if matches!(
            op,
            "tex" | "tld4" | "txq" | "suld" | "sust" | "suq" | "sured"
        ) {
            // Textures and surfaces (emit/texture.rs): before the half-precision check, so a
            // `.f16x2` texture result is refused with its own reason.
            return self.texture(i, op, mods);
        }
        let halfish = types.iter().any(|t| half_fmt(*t).is_some());
        let half_ops = [
            "mov", "ld", "st", "ldu", "cvt", "add", "sub", "mul", "fma", "neg", "abs", "min",
            "max", "setp", "set", "selp", "atom", "red",
        ];
        if halfish && !half_ops.contains(&op) {
            return unsupported(
                i,
                "of half precision and bf16, only mov, ld/st, cvt, add, sub, mul, fma, neg, abs, min, max, setp, set, selp and atom/red.add.noftz are translated",
            );
        }
        match op {
            "mov" => {
                need(2)?;
                let t = t.ok_or(()).or_else(|()| unsupported(i, "mov without a type"))?;
                match (&o[0], &o[1]) {
                    (d, Operand::Vector(parts)) => {
                        // pack: the parts' bits, low first
                        let w = t.size() / parts.len().max(1) as u32;
                        let pt = match w { 1 => Ty::B8, 2 => Ty::B16, 4 => Ty::B32, _ => return unsupported(i, "vector mov of this shape") };
                        let mut e = Vec::new();
                        for (k, p) in parts.iter().enumerate() {
                            e.push(format!("((ptx_u64){} << {})", self.src(p, pt, i)?, 8 * w * k as u32));
                        }
                        self.assign(d, &format!("({})", e.join(" | ")), Ty::B64, i)
                    }
                    (Operand::Vector(parts), s) => {
                        let w = t.size() / parts.len().max(1) as u32;
                        let pt = match w { 1 => Ty::B8, 2 => Ty::B16, 4 => Ty::B32, _ => return unsupported(i, "vector mov of this shape") };
                        let v = self.src(s, bits_ty(t), i)?;
                        let mut code = format!("{{ ptx_u64 v_ = (ptx_u64){v}; ");
                        for (k, p) in parts.iter().enumerate() {
                            if *p != Operand::Sink {
                                code.push_str(&self.assign(p, &format!("({})(v_ >> {})", ctype(pt), 8 * w * k as u32), pt, i)?);
                                code.push(' ');
                            }
                        }
                        code.push('}');
                        Ok(code)
                    }
                    (d, s) => {
                        let v = self.src(s, t, i)?;
                        self.assign(d, &v, t, i)
                    }
                }
            }
            "ld" | "st" | "ldu" => self.ld_st(i, op == "st", mods),
            "cvta" => {
                need(2)?;
                let to = has("to");
                let shared = has("shared");
                if !(has("global") || shared || has("local") || has("const") || has("param")) {
                    return unsupported(i, "cvta of this state space");
                }
                let v = self.src(&o[1], Ty::U64, i)?;
                let v = match (shared, to) {
                    (true, true) => format!("ptx_to_shared({v})"),
                    (true, false) => format!("ptx_from_shared({v})"),
                    _ => v,
                };
                self.assign(&o[0], &v, Ty::U64, i)
            }
            "add" | "sub" | "mad" if has("cc") => self.carry(i, op, mods, t),
            "addc" | "subc" | "madc" => self.carry(i, op, mods, t),
            "copysign" => {
                need(3)?;
                let (bits, mask) = match t {
                    Some(Ty::F32) => (Ty::B32, "0x80000000u"),
                    Some(Ty::F64) => (Ty::B64, "0x8000000000000000ull"),
                    _ => return unsupported(i, "copysign is .f32 or .f64"),
                };
                // d = b with a's sign: a bit operation, NaNs kept as they are (PTX).
                let ft = t.unwrap_or(Ty::F32);
                let (to_bits, of_bits) = if ft == Ty::F32 { ("ptx_bits32", "ptx_f32_of") } else { ("ptx_bits64", "ptx_f64_of") };
                let a = self.src(&o[1], ft, i)?;
                let b = self.src(&o[2], ft, i)?;
                let _ = bits;
                let v = format!("{of_bits}(({to_bits}({b}) & ~{mask}) | ({to_bits}({a}) & {mask}))");
                self.assign(&o[0], &v, ft, i)
            }
            "rsqrt" if has("approx") && t == Some(Ty::F64) => {
                need(2)?;
                // Computed to full precision (within PTX's bound for the approximation); .ftz
                // flushes a subnormal input to a zero of its sign first.
                let a = self.src(&o[1], Ty::F64, i)?;
                let a = if has("ftz") { format!("ptx_ftz_d({a})") } else { a };
                self.assign(&o[0], &format!("ptx_cnan_d(1.0 / sqrt({a}))"), Ty::F64, i)
            }
            "add" | "sub" | "mul" | "mad" | "fma" | "div" | "rem" | "min" | "max" | "neg" | "abs" | "sqrt" | "rcp" | "mul24" | "mad24" => self.arith(i, op, mods),
            "ex2" | "lg2" | "sin" | "cos" | "rsqrt" | "tanh" => {
                need(2)?;
                if !has("approx") || t != Some(Ty::F32) || op == "tanh" {
                    return unsupported(i, "only the .approx.f32 forms of ex2, lg2, sin, cos and rsqrt are translated");
                }
                let ftz = has("ftz");
                let a = self.src(&o[1], Ty::F32, i)?;
                let a = if ftz { format!("ptx_ftz({a})") } else { a };
                let f = match op { "ex2" => "exp2f", "lg2" => "log2f", "sin" => "sinf", "cos" => "cosf", _ => "rsqrtf" };
                let v = format!("ptx_cnan_f({f}({a}))");
                let v = if ftz { format!("ptx_ftz({v})") } else { v };
                self.assign(&o[0], &v, Ty::F32, i)
            }
            "and" | "or" | "xor" | "not" | "cnot" => {
                let t = t.ok_or(()).or_else(|()| unsupported(i, "no type"))?;
                let n = if op == "not" || op == "cnot" { 2 } else { 3 };
                need(n)?;
                let it = if t == Ty::Pred { Ty::Pred } else { bits_ty(t) };
                let a = self.src(&o[1], it, i)?;
                let v = match op {
                    "not" if t == Ty::Pred => format!("!{a}"),
                    "not" => format!("({})~{a}", ctype(it)),
                    "cnot" => format!("({})({a} == 0)", ctype(it)),
                    _ => {
                        let b = self.src(&o[2], it, i)?;
                        let c = match op { "and" => "&", "or" => "|", _ => "^" };
                        if t == Ty::Pred { format!("({a} {c} {b}) != 0") } else { format!("({})({a} {c} {b})", ctype(it)) }
                    }
                };
                self.assign(&o[0], &v, it, i)
            }
            "lop3" => {
                need(5)?;
                let t = t.unwrap_or(Ty::B32);
                let it = bits_ty(t);
                let (a, b, c) = (self.src(&o[1], it, i)?, self.src(&o[2], it, i)?, self.src(&o[3], it, i)?);
                let lut = self.src(&o[4], Ty::U32, i)?;
                self.assign(&o[0], &format!("({})ptx_lop3({a}, {b}, {c}, {lut})", ctype(it)), it, i)
            }
            "shl" | "shr" => {
                need(3)?;
                let t = t.ok_or(()).or_else(|()| unsupported(i, "no type"))?;
                let a = self.src(&o[1], t, i)?;
                let n = self.src(&o[2], Ty::U32, i)?;
                let f = match (op, t.size(), t.signed()) {
                    ("shl", 2, _) => "ptx_shl16",
                    ("shl", 4, _) => "ptx_shl32",
                    ("shl", 8, _) => "ptx_shl64",
                    ("shr", 2, true) => "ptx_shr_s16",
                    ("shr", 4, true) => "ptx_shr_s32",
                    ("shr", 8, true) => "ptx_shr_s64",
                    ("shr", 2, false) => "ptx_shr_u16",
                    ("shr", 4, false) => "ptx_shr_u32",
                    ("shr", 8, false) => "ptx_shr_u64",
                    _ => return unsupported(i, "shift of this type"),
                };
                let at = if op == "shr" && t.signed() { t } else { bits_ty(t) };
                let a = if at == t { a } else { conv(&a, t, at) };
                self.assign(&o[0], &format!("{f}({a}, {n})"), at, i)
            }
            "popc" | "clz" | "brev" => {
                need(2)?;
                let t = t.ok_or(()).or_else(|()| unsupported(i, "no type"))?;
                let w = match t.size() { 4 => 32, 8 => 64, _ => return unsupported(i, "only .b32 and .b64") };
                let a = self.src(&o[1], bits_ty(t), i)?;
                let (v, rt) = match op {
                    "brev" => (format!("ptx_brev{w}({a})"), bits_ty(t)),
                    _ => (format!("ptx_{op}{w}({a})"), Ty::U32),
                };
                self.assign(&o[0], &v, rt, i)
            }
            "bfind" => {
                need(2)?;
                let t = t.ok_or(()).or_else(|()| unsupported(i, "no type"))?;
                if t.size() < 4 {
                    return unsupported(i, "bfind of this type");
                }
                let a = self.src(&o[1], bits_ty(t), i)?;
                let v = format!("ptx_bfind((ptx_u64){a}, {}, {}, {})", 8 * t.size(), t.signed(), has("shiftamt"));
                self.assign(&o[0], &v, Ty::U32, i)
            }
            "bfe" => {
                need(4)?;
                let t = t.ok_or(()).or_else(|()| unsupported(i, "no type"))?;
                let a = self.src(&o[1], t, i)?;
                let (p, l) = (self.src(&o[2], Ty::U32, i)?, self.src(&o[3], Ty::U32, i)?);
                let v = format!("ptx_bfe((ptx_u64){}, {p}, {l}, {}, {})", conv(&a, t, bits_ty(t)), 8 * t.size(), t.signed());
                self.assign(&o[0], &v, Ty::U64, i)
            }
            "bfi" => {
                need(5)?;
                let t = t.ok_or(()).or_else(|()| unsupported(i, "no type"))?;
                let (a, b) = (self.src(&o[1], bits_ty(t), i)?, self.src(&o[2], bits_ty(t), i)?);
                let (p, l) = (self.src(&o[3], Ty::U32, i)?, self.src(&o[4], Ty::U32, i)?);
                self.assign(&o[0], &format!("ptx_bfi({a}, {b}, {p}, {l}, {})", 8 * t.size()), Ty::U64, i)
            }
            "prmt" => {
                need(4)?;
                let mode = ["f4e", "b4e", "rc8", "ecl", "ecr", "rc16"]
                    .iter()
                    .position(|m| mods.contains(m));
                let (a, b, c) = (self.src(&o[1], Ty::B32, i)?, self.src(&o[2], Ty::B32, i)?, self.src(&o[3], Ty::B32, i)?);
                let v = match mode {
                    Some(k) => format!("ptx_prmt_mode({a}, {b}, {c}, {})", k + 1),
                    None => format!("ptx_prmt({a}, {b}, {c})"),
                };
                self.assign(&o[0], &v, Ty::B32, i)
            }
            "testp" => {
                // testp.{finite,infinite,number,notanumber,normal,subnormal}.{f32,f64} p, a:
                // a class test on the bits (zero is neither normal nor subnormal).
                need(2)?;
                let (bits, e_mask, e_shift, m_mask) = match t {
                    Some(Ty::F32) => ("ptx_bits32", "0xffull", 23, "0x7fffffull"),
                    Some(Ty::F64) => ("ptx_bits64", "0x7ffull", 52, "0xfffffffffffffull"),
                    _ => return unsupported(i, "testp is .f32 or .f64"),
                };
                let a = self.src(&o[1], t.unwrap_or(Ty::F32), i)?;
                let (e, m) = (
                    format!("((((ptx_u64){bits}({a})) >> {e_shift}) & {e_mask})"),
                    format!("(((ptx_u64){bits}({a})) & {m_mask})"),
                );
                let v = match mods.first().copied().unwrap_or_default() {
                    "finite" => format!("({e} != {e_mask})"),
                    "infinite" => format!("({e} == {e_mask} && {m} == 0)"),
                    "number" => format!("!({e} == {e_mask} && {m} != 0)"),
                    "notanumber" => format!("({e} == {e_mask} && {m} != 0)"),
                    // Zero is normal to NVIDIA (an H200: testp.normal of +-0 is true): not
                    // NaN, not infinite, not subnormal.
                    "normal" => format!("({e} != {e_mask} && !({e} == 0 && {m} != 0))"),
                    "subnormal" => format!("({e} == 0 && {m} != 0)"),
                    other => return unsupported(i, &format!("testp.{other}")),
                };
                self.assign(&o[0], &v, Ty::Pred, i)
            }
            "setp" => self.setp(i, mods),
            "set" => self.set(i, mods),
            "selp" => {
                need(4)?;
                let t = t.ok_or(()).or_else(|()| unsupported(i, "no type"))?;
                let (a, b, p) = (self.src(&o[1], t, i)?, self.src(&o[2], t, i)?, self.src(&o[3], Ty::Pred, i)?);
                self.assign(&o[0], &format!("{p} ? {a} : {b}"), t, i)
            }
            "slct" => {
                need(4)?;
                let (Some(t), Some(ct)) = (types.first().copied(), types.get(1).copied()) else { return unsupported(i, "slct needs two types") };
                let (a, b) = (self.src(&o[1], t, i)?, self.src(&o[2], t, i)?);
                let c = self.src(&o[3], ct, i)?;
                let c = if has("ftz") && ct == Ty::F32 { format!("ptx_ftz({c})") } else { c };
                let cond = if ct == Ty::F32 { format!("{c} >= 0.0f") } else { format!("{c} >= 0") };
                self.assign(&o[0], &format!("({cond}) ? {a} : {b}"), t, i)
            }
            "bra" | "brx" => {
                if op == "brx" {
                    return unsupported(i, "indirect branches (brx.idx) are not translated yet");
                }
                need(1)?;
                match &o[0] {
                    Operand::Name(l) => Ok(format!("goto {};", ident(l))),
                    _ => unsupported(i, "branch target must be a label"),
                }
            }
            "ret" => Ok("return;".into()),
            "exit" if self.entry => Ok("return;".into()),
            "exit" => unsupported(i, "exit inside a .func is not translated yet"),
            "call" => self.call(i),
            "cvt" => self.cvt(i, mods, &types),
            "bar" if has("warp") => {
                // bar.warp.sync membermask
                need(1)?;
                if !has("sync") {
                    return unsupported(i, "bar.warp without .sync");
                }
                let m = self.src(&o[0], Ty::B32, i)?;
                Ok(format!("ptx_warp_sync({m});"))
            }
            "bar" | "barrier" if has("red") => {
                // bar.red.{popc.u32,and.pred,or.pred} d, 0, {!}p: a block barrier that also
                // reduces a predicate over the block (__syncthreads_count/and/or).
                need(3)?;
                if o[1] != Operand::Int(0) {
                    return unsupported(i, "bar.red with a barrier other than 0 is not translated");
                }
                let (f, rt) = if has("popc") {
                    ("ptx_bar_red_popc", Ty::U32)
                } else if has("and") {
                    ("ptx_bar_red_and", Ty::Pred)
                } else if has("or") {
                    ("ptx_bar_red_or", Ty::Pred)
                } else {
                    return unsupported(i, "bar.red is .popc, .and or .or");
                };
                let p = self.src(&o[2], Ty::Pred, i)?;
                self.assign(&o[0], &format!("{f}({p})"), rt, i)
            }
            "bar" | "barrier" => {
                let sync = has("sync") || (op == "bar" && mods.is_empty());
                if !sync || o.len() != 1 || o[0] != Operand::Int(0) {
                    return unsupported(i, "only bar.sync 0 / barrier.sync 0 (the whole block, barrier 0) is translated");
                }
                Ok("__syncthreads();".into())
            }
            "membar" | "fence" => {
                if has("proxy") || has("mbarrier_init") || has("cluster") {
                    return unsupported(i, "proxy and cluster fences are not translated");
                }
                Ok(if has("cta") { "__threadfence_block();" } else if has("sys") { "__threadfence_system();" } else { "__threadfence();" }.into())
            }
            "atom" | "red" => self.atom(i, op == "red", mods, t),
            "shfl" => self.shfl(i, mods),
            "vote" => self.vote(i, mods),
            "match" => self.match_(i, mods),
            "redux" => self.redux(i, mods),
            "activemask" => {
                need(1)?;
                if t != Some(Ty::B32) {
                    return unsupported(i, "activemask is .b32");
                }
                self.assign(&o[0], "ptx_activemask()", Ty::B32, i)
            }
            "dp4a" | "dp2a" => {
                // dp4a.atype.btype d, a, b, c / dp2a.{lo,hi}.atype.btype d, a, b, c: byte (and
                // 16-bit) dot products added to c, wrapping at 32 bits.
                need(4)?;
                let (Some(&ta), Some(&tb)) = (types.first(), types.get(1)) else {
                    return unsupported(i, "dp4a and dp2a take two types (.u32 or .s32)");
                };
                if !matches!(ta, Ty::U32 | Ty::S32) || !matches!(tb, Ty::U32 | Ty::S32) {
                    return unsupported(i, "dp4a and dp2a take .u32 or .s32 operands");
                }
                let (sa, sb) = (ta == Ty::S32, tb == Ty::S32);
                let a = self.src(&o[1], Ty::U32, i)?;
                let b = self.src(&o[2], Ty::U32, i)?;
                let c = self.src(&o[3], Ty::U32, i)?;
                let v = if op == "dp4a" {
                    format!("ptx_dp4a({a}, {b}, {c}, {sa}, {sb})")
                } else {
                    let hi = match (has("lo"), has("hi")) {
                        (true, false) => false,
                        (false, true) => true,
                        _ => return unsupported(i, "dp2a is .lo or .hi"),
                    };
                    format!("ptx_dp2a({a}, {b}, {c}, {sa}, {sb}, {hi})")
                };
                self.assign(&o[0], &v, Ty::U32, i)
            }
            "trap" => {
                need(0)?;
                Ok("ptx_trap();".into())
            }
            "wgmma" | "tcgen05" | "mbarrier" | "setmaxnreg" | "griddepcontrol" | "elect" => unsupported(i, "not translated: wgmma, tcgen05, mbarrier and cluster instructions are refused (asynchronous tensor-core and barrier hardware)"),
            _ => unsupported(i, "not in the translator's instruction set"),
        }
    }

    fn ld_st(&self, i: &Inst, store: bool, mods: &[&str]) -> Result<String, PtxError> {
        let o = &i.operands;
        if o.len() != 2 {
            return Err(PtxError::Syntax {
                line: i.line,
                column: i.col,
                message: format!("`{}` takes 2 operands", i.opcode),
            });
        }
        let mut space = None;
        let mut vol = false;
        let mut t = None;
        let mut vec = 1;
        for m in mods {
            match *m {
                "global" => space = Some(Space::Global),
                "shared" => space = Some(Space::Shared),
                "local" => space = Some(Space::Local),
                "const" => space = Some(Space::Const),
                "param" => space = Some(Space::Param),
                "volatile" | "relaxed" => vol = true,
                "v2" => vec = 2,
                "v4" => vec = 4,
                "nc" | "ca" | "cg" | "cs" | "lu" | "cv" | "wb" | "wt" | "L1::no_allocate"
                | "gpu" | "cta" | "sys" => {}
                "acquire" | "release" | "mmio" | "weak" | "cluster" | "shared::cluster"
                | "shared::cta" => {
                    return unsupported(i, &format!(".{m} loads and stores are not translated yet"))
                }
                m if m.starts_with("L2::") || m.starts_with("L1::") => {}
                m => match Ty::from_suffix(m) {
                    Some(x) => t = Some(x),
                    None => return unsupported(i, &format!("the modifier .{m} is not translated")),
                },
            }
        }
        let t = t.ok_or(()).or_else(|()| unsupported(i, "no type"))?;
        let (mem, val) = if store {
            (&o[0], &o[1])
        } else {
            (&o[1], &o[0])
        };
        let ptr = self.addr(mem, space, i)?;
        let q = if vol { "volatile " } else { "" };
        let ct = ctype(t);
        let elems: Vec<Operand> = match val {
            Operand::Vector(v) if v.len() == vec => v.clone(),
            v if vec == 1 => vec![v.clone()],
            _ => return unsupported(i, "vector width and operand count differ"),
        };
        let mut code = format!("{{ unsigned char* p_ = {ptr}; ");
        for (k, e) in elems.iter().enumerate() {
            let at = format!("(*({q}{ct}*)(p_ + {}))", k as u32 * t.size());
            if store {
                if *e == Operand::Sink {
                    continue;
                }
                let v = self.src(e, t, i)?;
                let _ = write!(code, "{at} = {v}; ");
            } else if *e != Operand::Sink {
                code.push_str(&self.assign(e, &at, t, i)?);
                code.push(' ');
            }
        }
        code.push('}');
        Ok(code)
    }

    fn arith(&self, i: &Inst, op: &str, mods: &[&str]) -> Result<String, PtxError> {
        let o = &i.operands;
        let types: Vec<Ty> = mods.iter().filter_map(|m| Ty::from_suffix(m)).collect();
        let Some(&t) = types.first() else {
            return unsupported(i, "no type");
        };
        let has = |m: &str| mods.contains(&m);
        let unary = matches!(op, "neg" | "abs" | "sqrt" | "rcp");
        let ternary = matches!(op, "mad" | "fma" | "mad24");
        let n = if unary {
            2
        } else if ternary {
            4
        } else {
            3
        };
        if o.len() != n {
            return Err(PtxError::Syntax {
                line: i.line,
                column: i.col,
                message: format!("`{}` takes {n} operands, found {}", i.opcode, o.len()),
            });
        }
        if t.float() {
            return self.farith(i, op, mods, t);
        }
        if half_fmt(t).is_some() {
            return self.harith(i, op, mods, t);
        }
        if has("cc") || op == "addc" || op == "subc" {
            return unsupported(i, "carry arithmetic (.cc) is not translated yet");
        }
        let wide = has("wide");
        let hi = has("hi");
        let it = t;
        let ut = bits_ty(t);
        let a = self.src(&o[1], it, i)?;
        let s = t.size();
        let wt = if s < 4 { "ptx_u32" } else { utype(s) }; // no promotion to int
        if unary {
            let v = match op {
                "neg" => format!("({})(0u - ({wt}){a})", ctype(it)),
                "abs" if t.signed() => format!(
                    "({}) ({a} < 0 ? ({})(0u - ({wt}){a}) : {a})",
                    ctype(it),
                    ctype(it)
                ),
                _ => return unsupported(i, "integer form of this operation"),
            };
            return self.assign(&o[0], &v, it, i);
        }
        let b = self.src(&o[2], it, i)?;
        let (v, rt) = match op {
            "add" | "sub" if has("sat") => {
                if t != Ty::S32 {
                    return unsupported(i, ".sat is defined for .s32 only");
                }
                (format!("ptx_{op}_sat_s32({a}, {b})"), Ty::S32)
            }
            "add" => (format!("({})(({wt}){a} + ({wt}){b})", ctype(ut)), ut),
            "sub" => (format!("({})(({wt}){a} - ({wt}){b})", ctype(ut)), ut),
            "mul" | "mad" if wide => {
                let dt = wide_ty(t)
                    .ok_or(())
                    .or_else(|()| unsupported(i, ".wide of this type"))?;
                let p = format!("(({}){a} * ({}){b})", ctype(dt), ctype(dt));
                let p = format!("({})({}){p}", ctype(bits_ty(dt)), utype(dt.size()));
                if op == "mad" {
                    let c = self.src(&o[3], dt, i)?;
                    (
                        format!("({})({p} + ({}){c})", ctype(bits_ty(dt)), utype(dt.size())),
                        bits_ty(dt),
                    )
                } else {
                    (p, bits_ty(dt))
                }
            }
            "mul" | "mad" => {
                if has("sat") {
                    return unsupported(i, "mad.hi.sat is not translated yet");
                }
                let p = if hi {
                    let f = format!("ptx_mulhi_{}{}", if t.signed() { "s" } else { "u" }, 8 * s);
                    format!("({wt}){f}({a}, {b})")
                } else {
                    format!("(({wt}){a} * ({wt}){b})")
                };
                if op == "mad" {
                    let c = self.src(&o[3], it, i)?;
                    (format!("({})({p} + ({wt}){c})", ctype(ut)), ut)
                } else {
                    (format!("({})({p})", ctype(ut)), ut)
                }
            }
            "mul24" | "mad24" => {
                if s != 4 {
                    return unsupported(i, "mul24 of this type");
                }
                let f = format!(
                    "ptx_mul24{}_{}",
                    if hi { "hi" } else { "lo" },
                    if t.signed() { "s" } else { "u" }
                );
                let p = format!("{f}((ptx_u32){a}, (ptx_u32){b})");
                if op == "mad24" {
                    if has("sat") {
                        return unsupported(i, "mad24.hi.sat is not translated yet");
                    }
                    let c = self.src(&o[3], it, i)?;
                    (format!("(ptx_u32)({p} + (ptx_u32){c})"), Ty::U32)
                } else {
                    (p, Ty::U32)
                }
            }
            "div" | "rem" => {
                if s < 4 {
                    let w = if t.signed() { "ptx_s32" } else { "ptx_u32" };
                    let f = format!("ptx_{op}_{}32", if t.signed() { "s" } else { "u" });
                    (format!("({})({f}(({w}){a}, ({w}){b}))", ctype(it)), it)
                } else {
                    (
                        format!(
                            "ptx_{op}_{}{}({a}, {b})",
                            if t.signed() { "s" } else { "u" },
                            8 * s
                        ),
                        it,
                    )
                }
            }
            "min" | "max" => {
                if has("relu") {
                    return unsupported(i, "min/max .relu is not translated yet");
                }
                let c = if op == "min" { "<" } else { ">" };
                (format!("({a} {c} {b}) ? {a} : {b}"), it)
            }
            _ => return unsupported(i, "integer form of this operation"),
        };
        self.assign(&o[0], &v, rt, i)
    }

    fn farith(&self, i: &Inst, op: &str, mods: &[&str], t: Ty) -> Result<String, PtxError> {
        let o = &i.operands;
        let has = |m: &str| mods.contains(&m);
        let f32 = t == Ty::F32;
        let ftz = has("ftz") && f32;
        let sat = has("sat");
        let approx = has("approx") || has("full");
        let m = mode_of(mods);
        let src = |k: usize| -> Result<String, PtxError> {
            let v = self.src(&o[k], t, i)?;
            Ok(if ftz { format!("ptx_ftz({v})") } else { v })
        };
        let sfx = if f32 { "f" } else { "d" };
        let mode = m.unwrap_or(0);
        if !f32 && mode != 0 && matches!(op, "fma" | "mad") {
            return unsupported(
                i,
                "f64 fma in a directed rounding mode (.rz/.rm/.rp) is not translated yet",
            );
        }
        let v = match op {
            "add" | "sub" => format!("ptx_{op}_{sfx}({}, {}, {mode})", src(1)?, src(2)?),
            "mul" => {
                if f32 {
                    format!("ptx_mul_f({}, {}, {mode})", src(1)?, src(2)?)
                } else {
                    format!("ptx_mul_d({}, {}, {mode})", src(1)?, src(2)?)
                }
            }
            "fma" | "mad" => {
                if f32 {
                    format!("ptx_fma_f({}, {}, {}, {mode})", src(1)?, src(2)?, src(3)?)
                } else {
                    format!(
                        "ptx_cnan_d(ptx_dfma({}, {}, {}))",
                        src(1)?,
                        src(2)?,
                        src(3)?
                    )
                }
            }
            "div" => {
                if approx && m.is_none() {
                    // div.approx / div.full: within 2 ulp; the correctly rounded quotient is.
                    format!("ptx_cnan_{sfx}(ptx_{sfx}div({}, {}))", src(1)?, src(2)?)
                } else if f32 {
                    format!("ptx_div_f({}, {}, {mode})", src(1)?, src(2)?)
                } else {
                    format!("ptx_div_d({}, {}, {mode})", src(1)?, src(2)?)
                }
            }
            "sqrt" => {
                if f32 {
                    format!("ptx_sqrt_f({}, {mode})", src(1)?)
                } else {
                    format!("ptx_sqrt_d({}, {mode})", src(1)?)
                }
            }
            "rcp" => {
                if f32 {
                    format!("ptx_rcp_f({}, {mode})", src(1)?)
                } else if has("ftz") {
                    // rcp.approx.ftz.f64: a subnormal input is a zero, a subnormal result too.
                    format!("ptx_ftz_d(ptx_rcp_d(ptx_ftz_d({}), {mode}))", src(1)?)
                } else {
                    format!("ptx_rcp_d({}, {mode})", src(1)?)
                }
            }
            "neg" => format!("(-{})", src(1)?),
            "abs" => format!("fabs{}({})", if f32 { "f" } else { "" }, src(1)?),
            "min" | "max" => {
                if has("xorsign") || has("relu") || (has("NaN") && !f32) {
                    return unsupported(
                        i,
                        "min/max .xorsign and .relu, and .NaN on .f64, are not translated yet",
                    );
                }
                let v = format!("ptx_{op}_{sfx}({}, {})", src(1)?, src(2)?);
                if has("NaN") {
                    // .NaN: a NaN operand gives the canonical NaN.
                    let (a, b) = (src(1)?, src(2)?);
                    format!("(({a} != {a} || {b} != {b}) ? ptx_f32_of(0x7fffffffu) : {v})")
                } else {
                    v
                }
            }
            _ => return unsupported(i, "float form of this operation"),
        };
        // .ftz on a result: mul, div and fma flush what is tiny before it rounds up to the
        // smallest normal (ptx_tiny, from the exact value: a product of floats is exact in
        // f64, a quotient and an fma are f64-rounded, a tie with the f32 grid's edge needing
        // more bits than a rounding error of 2^-53 can hide).
        let exact = match op {
            "mul" if !approx => Some(format!("((double){} * (double){})", src(1)?, src(2)?)),
            "div" if m.is_some() => Some(format!("((double){} / (double){})", src(1)?, src(2)?)),
            "fma" | "mad" if m.is_some() => Some(format!(
                "fma((double){}, (double){}, (double){})",
                src(1)?,
                src(2)?,
                src(3)?
            )),
            _ => None,
        };
        let v = match (ftz, exact) {
            (true, Some(x)) => format!("ptx_ftz_tiny_f({v}, {x}, {mode})"),
            (true, None) => format!("ptx_ftz({v})"),
            (false, _) => v,
        };
        // .sat last, after the flush: a result flushed to -0 saturates to +0, as NVIDIA's does.
        let v = if sat {
            format!("ptx_sat_{sfx}({v})")
        } else {
            v
        };
        self.assign(&o[0], &v, t, i)
    }

    fn setp(&self, i: &Inst, mods: &[&str]) -> Result<String, PtxError> {
        let o = &i.operands;
        let types: Vec<Ty> = mods.iter().filter_map(|m| Ty::from_suffix(m)).collect();
        let Some(&t) = types.first() else {
            return unsupported(i, "no type");
        };
        let (e, comb) = self.comparison(i, mods, t)?;
        let (p, q) = match &o[0] {
            Operand::Pair(p, q) => (Operand::Name(p.clone()), Some(Operand::Name(q.clone()))),
            d => (d.clone(), None),
        };
        let (pe, qe) = match comb {
            Some((cop, c3)) => (format!("(r_ {cop} {c3})"), format!("(!r_ {cop} {c3})")),
            None => ("r_".to_owned(), "!r_".to_owned()),
        };
        let mut code = format!("{{ bool r_ = {e}; {}", self.assign(&p, &pe, Ty::Pred, i)?);
        if let Some(q) = q {
            let _ = write!(code, " {}", self.assign(&q, &qe, Ty::Pred, i)?);
        }
        code.push_str(" }");
        Ok(code)
    }

    /// What `setp` and `set` share: the comparison (its `.cmp`, the first modifier) of operands
    /// 1 and 2 read as `t`, the operand count checked, and the `.and`/`.or`/`.xor` combining
    /// (its C++ operator and operand 3, the predicate), if any.
    fn comparison(
        &self,
        i: &Inst,
        mods: &[&str],
        t: Ty,
    ) -> Result<(String, Option<Combine>), PtxError> {
        let cmp = mods.first().copied().unwrap_or_default();
        let cop = mods.iter().find_map(|m| match *m {
            "and" => Some("&&"),
            "or" => Some("||"),
            "xor" => Some("!="),
            _ => None,
        });
        if i.operands.len() != 3 + usize::from(cop.is_some()) {
            return Err(PtxError::Syntax {
                line: i.line,
                column: i.col,
                message: format!("`{}`: wrong operand count", i.opcode),
            });
        }
        let e = self.compare(i, cmp, t, mods.contains(&"ftz"))?;
        let comb = match cop {
            Some(c) => Some((c, self.src(&i.operands[3], Ty::Pred, i)?)),
            None => None,
        };
        Ok((e, comb))
    }

    /// The comparison `.cmp` of operands 1 and 2 read as `t` (`setp`'s and `set`'s), as a C++
    /// `bool` expression; halves compare as their exact values; `ftz_mod`: `.ftz`.
    fn compare(&self, i: &Inst, cmp: &str, t: Ty, ftz_mod: bool) -> Result<String, PtxError> {
        let o = &i.operands;
        let ftz = ftz_mod && t == Ty::F32;
        let hftz = ftz_mod;
        let half = half_fmt(t);
        if matches!(t, Ty::F16x2 | Ty::Bf16x2) {
            return unsupported(
                i,
                "comparisons of packed halves (.f16x2, .bf16x2) are not translated yet",
            );
        }
        let rd = |k: usize| -> Result<String, PtxError> {
            if let Some(fmt) = half {
                // Halves compare as their (exact) f32 values.
                let v = self.src(&o[k], Ty::B16, i)?;
                return Ok(format!("((float)ptx_h2d({v}, {fmt}, {hftz}))"));
            }
            let v = self.src(&o[k], t, i)?;
            Ok(if ftz { format!("ptx_ftz({v})") } else { v })
        };
        let (a, b) = (rd(1)?, rd(2)?);
        let e = if t.float() || half.is_some() {
            let nan = format!("({a} != {a} || {b} != {b})");
            match cmp {
                "eq" => format!("({a} == {b})"),
                "ne" => format!("(!{nan} && {a} != {b})"),
                "lt" => format!("({a} < {b})"),
                "le" => format!("({a} <= {b})"),
                "gt" => format!("({a} > {b})"),
                "ge" => format!("({a} >= {b})"),
                "equ" => format!("({nan} || {a} == {b})"),
                "neu" => format!("({a} != {b})"),
                "ltu" => format!("!({a} >= {b})"),
                "leu" => format!("!({a} > {b})"),
                "gtu" => format!("!({a} <= {b})"),
                "geu" => format!("!({a} < {b})"),
                "num" => format!("!{nan}"),
                "nan" => nan,
                _ => return unsupported(i, &format!("the comparison .{cmp}")),
            }
        } else {
            let (sa, sb) = if t == Ty::Pred {
                (format!("(int){a}"), format!("(int){b}"))
            } else {
                (a.clone(), b.clone())
            };
            let (ua, ub) = (conv(&a, t, bits_ty(t)), conv(&b, t, bits_ty(t)));
            match cmp {
                "eq" => format!("({sa} == {sb})"),
                "ne" => format!("({sa} != {sb})"),
                "lt" => format!("({sa} < {sb})"),
                "le" => format!("({sa} <= {sb})"),
                "gt" => format!("({sa} > {sb})"),
                "ge" => format!("({sa} >= {sb})"),
                "lo" => format!("({ua} < {ub})"),
                "ls" => format!("({ua} <= {ub})"),
                "hi" => format!("({ua} > {ub})"),
                "hs" => format!("({ua} >= {ub})"),
                _ => return unsupported(i, &format!("the comparison .{cmp} on integers")),
            }
        };
        Ok(e)
    }

    /// `set.cmp{.bool}.dtype.stype d, a, b{, {!}c}`: the comparison as a value: all ones for an
    /// integer `d`, 1.0 for a float or half one, else 0.
    fn set(&self, i: &Inst, mods: &[&str]) -> Result<String, PtxError> {
        let o = &i.operands;
        let types: Vec<Ty> = mods.iter().filter_map(|m| Ty::from_suffix(m)).collect();
        let (Some(&d), Some(&t)) = (types.first(), types.get(1)) else {
            return unsupported(i, "set takes two types");
        };
        let (e, comb) = self.comparison(i, mods, t)?;
        let e = match comb {
            Some((cop, c3)) => format!("({e} {cop} {c3})"),
            None => e,
        };
        let (v, dt) = match d {
            Ty::U32 | Ty::S32 | Ty::B32 => (format!("({e} ? 0xffffffffu : 0u)"), Ty::U32),
            Ty::F32 => (format!("({e} ? 1.0f : 0.0f)"), Ty::F32),
            Ty::F16 => (format!("(ptx_u16)({e} ? 0x3c00u : 0u)"), Ty::B16),
            Ty::Bf16 => (format!("(ptx_u16)({e} ? 0x3f80u : 0u)"), Ty::B16),
            _ => return unsupported(i, "set gives .u32, .s32, .f32, .f16 or .bf16"),
        };
        self.assign(&o[0], &v, dt, i)
    }

    fn call(&self, i: &Inst) -> Result<String, PtxError> {
        let o = &i.operands;
        let (rets, rest) = match o.first() {
            Some(Operand::List(r)) => (r.clone(), &o[1..]),
            _ => (Vec::new(), &o[..]),
        };
        let Some(Operand::Name(f)) = rest.first() else {
            return unsupported(i, "indirect calls are not translated yet");
        };
        match self.syms.get(f.as_str()) {
            Some(Sym::Func) => {}
            _ => {
                return unsupported(
                    i,
                    "indirect calls (through a register) are not translated yet",
                )
            }
        }
        if self.undefined.contains(f.as_str()) {
            if f == "__assertfail" {
                // assert() failing in device code: the kernel stops, as CUDA's does (CUDA also
                // prints the message; the translation does not).
                return Ok("ptx_trap();".into());
            }
            return unsupported(i, &format!("`{f}` is declared but no module defines it (external functions, such as vprintf, are not translated yet)"));
        }
        let args: Vec<Operand> = match rest.get(1) {
            Some(Operand::List(a)) => a.clone(),
            None => Vec::new(),
            _ => return unsupported(i, "a call's arguments must be a list"),
        };
        if rest.len() > 2 {
            return unsupported(i, "calls with a prototype are not translated yet");
        }
        let mut names = Vec::new();
        for a in rets.iter().chain(&args) {
            match a {
                Operand::Name(n) if self.syms.get(n.as_str()) == Some(&Sym::Var(Space::Param)) => {
                    names.push(ident(n))
                }
                _ => return unsupported(i, "call arguments must be .param variables"),
            }
        }
        Ok(format!("{}({});", self.cname(f), names.join(", ")))
    }

    fn cvt(&self, i: &Inst, mods: &[&str], types: &[Ty]) -> Result<String, PtxError> {
        let o = &i.operands;
        if mods
            .iter()
            .any(|m| m.starts_with("e4m3") || m.starts_with("e5m2"))
        {
            return self.cvt_fp8(i, mods);
        }
        if types.iter().any(|t| half_fmt(*t).is_some()) {
            return self.cvt_half(i, mods, types);
        }
        if o.len() != 2 {
            return Err(PtxError::Syntax {
                line: i.line,
                column: i.col,
                message: "`cvt` takes 2 operands".into(),
            });
        }
        let (Some(&d), Some(&s)) = (types.first(), types.get(1)) else {
            return unsupported(i, "cvt needs two types");
        };
        let has = |m: &str| mods.contains(&m);
        let ftz = has("ftz");
        let sat = has("sat");
        let m = mode_of(mods);
        let int_round = mods
            .iter()
            .any(|x| matches!(*x, "rni" | "rzi" | "rmi" | "rpi"));
        let a = self.src(&o[1], s, i)?;
        let a = if ftz && s == Ty::F32 {
            format!("ptx_ftz({a})")
        } else {
            a
        };
        let v = match (s.float(), d.float()) {
            (false, false) => {
                let wide = if s.signed() {
                    format!("(ptx_s64){a}")
                } else {
                    format!("(ptx_u64){a}")
                };
                if sat && (d.size() < s.size() || d.signed() != s.signed()) {
                    let (lo, hi): (i128, i128) = if d.signed() {
                        (
                            -(1i128 << (8 * d.size() - 1)),
                            (1i128 << (8 * d.size() - 1)) - 1,
                        )
                    } else {
                        (0, (1i128 << (8 * d.size())) - 1)
                    };
                    if s.signed() {
                        let lo = lo.max(i128::from(i64::MIN));
                        let hi = hi.min(i128::from(i64::MAX));
                        format!(
                            "({})({wide} < {lo}ll ? {lo}ll : ({wide} > {hi}ll ? {hi}ll : {wide}))",
                            ctype(d)
                        )
                    } else {
                        let hi = hi as u128 as u64;
                        format!("({})({wide} > {hi}ull ? {hi}ull : {wide})", ctype(d))
                    }
                } else {
                    format!("({})({wide})", ctype(d))
                }
            }
            (true, false) => {
                if !int_round {
                    return unsupported(i, "float to integer cvt needs .rni/.rzi/.rmi/.rpi");
                }
                let mode = m.unwrap_or(0);
                let r = if s == Ty::F32 {
                    format!("(double)ptx_rint_f({a}, {mode})")
                } else {
                    format!("ptx_rint_d({a}, {mode})")
                };
                // NaN (PTX ISA, cvt): 0 when neither the source is .f64 nor the destination
                // 64 bits wide, else 1 << (bits - 1), MININT for a signed destination (NVIDIA's
                // hardware answers so: seen on an H200 for cvt.rzi.s64.f64).
                let nan_is_zero = s != Ty::F64 && d.size() < 8;
                if d.signed() {
                    let (lo, hi) = (
                        -(1i128 << (8 * d.size() - 1)),
                        (1i128 << (8 * d.size() - 1)) - 1,
                    );
                    let lo = if d.size() == 8 {
                        "(-9223372036854775807ll - 1)".to_owned()
                    } else {
                        format!("{lo}ll")
                    };
                    let nan = if nan_is_zero {
                        "0ll".to_owned()
                    } else {
                        lo.clone()
                    };
                    format!("({})ptx_f2s({r}, {lo}, {hi}ll, {nan})", ctype(d))
                } else {
                    let hi = if d.size() == 8 {
                        u64::MAX
                    } else {
                        (1u64 << (8 * d.size())) - 1
                    };
                    let nan = if nan_is_zero {
                        0
                    } else {
                        1u64 << (8 * d.size() - 1)
                    };
                    format!("({})ptx_f2u({r}, {hi}ull, {nan}ull)", ctype(d))
                }
            }
            (false, true) => {
                if int_round {
                    return unsupported(i, "integer rounding on an integer source");
                }
                let mode = m.unwrap_or(0);
                let r = match (d, s.size() == 8, s.signed()) {
                    (Ty::F32, true, true) => format!("ptx_s64_to_f((ptx_s64){a}, {mode})"),
                    (Ty::F32, true, false) => format!("ptx_u64_to_f((ptx_u64){a}, {mode})"),
                    (Ty::F32, false, true) => {
                        format!("ptx_round_f32((double)(ptx_s64){a}, 0.0, {mode})")
                    }
                    (Ty::F32, false, false) => {
                        format!("ptx_round_f32((double)(ptx_u64){a}, 0.0, {mode})")
                    }
                    (_, true, true) => format!("ptx_s64_to_d((ptx_s64){a}, {mode})"),
                    (_, true, false) => format!("ptx_u64_to_d((ptx_u64){a}, {mode})"),
                    (_, false, true) => format!("(double)(ptx_s64){a}"),
                    (_, false, false) => format!("(double)(ptx_u64){a}"),
                };
                r
            }
            (true, true) => {
                let mode = m.unwrap_or(0);
                match (s, d) {
                    (Ty::F32, Ty::F64) => {
                        if int_round {
                            format!("(double)ptx_rint_f({a}, {mode})")
                        } else if ftz {
                            // With .ftz an f32 NaN becomes the canonical one first (an H200:
                            // cvt.ftz.f64.f32 of any NaN is 0x7fffffffe0000000).
                            format!("(double)ptx_cnan_f({a})")
                        } else {
                            format!("(double){a}")
                        }
                    }
                    (Ty::F64, Ty::F32) => {
                        if int_round {
                            return unsupported(i, "integer rounding with a narrowing cvt");
                        }
                        // A NaN keeps its sign and the top of its payload, as on NVIDIA.
                        format!("({a} != {a} ? ptx_f64_nan_to_f({a}) : ptx_round_f32({a}, 0.0, {mode}))")
                    }
                    (Ty::F32, Ty::F32) => {
                        if int_round {
                            format!("ptx_rint_f({a}, {mode})")
                        } else {
                            a.clone()
                        }
                    }
                    _ => {
                        if int_round {
                            format!("ptx_rint_d({a}, {mode})")
                        } else {
                            a.clone()
                        }
                    }
                }
            }
        };
        let v = if d.float() && sat {
            format!("ptx_sat_{}({v})", if d == Ty::F32 { "f" } else { "d" })
        } else {
            v
        };
        let v = if d == Ty::F32 && ftz {
            format!("ptx_ftz({v})")
        } else {
            v
        };
        // Integer destinations narrower than their register: PTX sign/zero-extends by d.
        self.assign(&o[0], &v, d, i)
    }

    fn atom(&self, i: &Inst, red: bool, mods: &[&str], t: Option<Ty>) -> Result<String, PtxError> {
        let o = &i.operands;
        let t = t.ok_or(()).or_else(|()| unsupported(i, "no type"))?;
        let mut space = None;
        let mut opn = None;
        for m in mods {
            match *m {
                "global" => space = Some(Space::Global),
                "shared" => space = Some(Space::Shared),
                "add" | "min" | "max" | "inc" | "dec" | "and" | "or" | "xor" | "exch" | "cas" => {
                    opn = Some(*m)
                }
                "relaxed" | "gpu" | "cta" => {}
                "noftz" if half_fmt(t).is_some() => {}
                "sys" | "acquire" | "release" | "acq_rel" | "cluster" | "noftz" => {
                    return unsupported(i, &format!("atomics with .{m} are not translated yet"))
                }
                m if Ty::from_suffix(m).is_some() => {}
                m => return unsupported(i, &format!("the atomic modifier .{m}")),
            }
        }
        let Some(opn) = opn else {
            return unsupported(i, "no atomic operation");
        };
        let first = usize::from(!red);
        let n = first + if opn == "cas" { 3 } else { 2 };
        if o.len() != n {
            return Err(PtxError::Syntax {
                line: i.line,
                column: i.col,
                message: format!("`{}`: wrong operand count", i.opcode),
            });
        }
        let ptr = self.addr(&o[first], space, i)?;
        if let Some(fmt) = half_fmt(t) {
            // Halves: only atom/red.add.noftz (PTX's only atomic on them besides cas/exch of
            // .b16, which are typed as bits).
            if opn != "add" || !mods.contains(&"noftz") {
                return unsupported(i, "atomics on halves are .add.noftz");
            }
            let pair = matches!(t, Ty::F16x2 | Ty::Bf16x2);
            let bt = if pair { Ty::B32 } else { Ty::B16 };
            let b = self.src(&o[first + 1], bt, i)?;
            let call = format!("ptx_atom_add_h_word((ptx_u64)p_, (ptx_u32){b}, {fmt}, {pair})");
            let body = if red {
                format!("(void){call};")
            } else {
                let call = if pair {
                    call
                } else {
                    format!("(ptx_u16){call}")
                };
                self.assign(&o[0], &call, bt, i)?
            };
            return Ok(format!("{{ unsigned char* p_ = {ptr}; {body} }}"));
        }
        let (ct, vt) = match (t, opn) {
            (Ty::F32, "add" | "exch") => ("float", Ty::F32),
            (Ty::F64, "add") => ("double", Ty::F64),
            (Ty::S32, "add" | "min" | "max") => ("int", Ty::S32),
            (Ty::U32 | Ty::B32 | Ty::S32, _) => ("unsigned int", Ty::U32),
            (Ty::S64, "min" | "max") => ("ptx_s64", Ty::S64),
            (
                Ty::U64 | Ty::B64 | Ty::S64,
                "add" | "min" | "max" | "and" | "or" | "xor" | "exch" | "cas",
            ) => ("unsigned long long", Ty::U64),
            _ => return unsupported(i, &format!("atomic .{opn} on this type")),
        };
        if matches!(opn, "inc" | "dec") && vt != Ty::U32 {
            return unsupported(i, "atom.inc/dec are defined for .u32 only");
        }
        let b = self.src(&o[first + 1], vt, i)?;
        let call = match opn {
            "cas" => {
                let c = self.src(&o[first + 2], vt, i)?;
                format!("atomicCAS(({ct}*)p_, {b}, {c})")
            }
            "min" | "max" if vt == Ty::S64 => format!("ptx_atom_{opn}_s64((ptx_s64*)p_, {b})"),
            _ => {
                let f = match opn {
                    "add" => "atomicAdd",
                    "min" => "atomicMin",
                    "max" => "atomicMax",
                    "inc" => "atomicInc",
                    "dec" => "atomicDec",
                    "and" => "atomicAnd",
                    "or" => "atomicOr",
                    "xor" => "atomicXor",
                    _ => "atomicExch",
                };
                format!("{f}(({ct}*)p_, {b})")
            }
        };
        let body = if red {
            format!("(void){call};")
        } else {
            self.assign(&o[0], &call, vt, i)?
        };
        Ok(format!("{{ unsigned char* p_ = {ptr}; {body} }}"))
    }
}

/// A comparison's `.and`/`.or`/`.xor` combining: its C++ operator and the predicate operand.
type Combine = (&'static str, String);

/// A half type's format in the support header: 0 f16, 1 bf16 (packed pairs too).
fn half_fmt(t: Ty) -> Option<u32> {
    match t {
        Ty::F16 | Ty::F16x2 => Some(0),
        Ty::Bf16 | Ty::Bf16x2 => Some(1),
        _ => None,
    }
}

/// The untyped-bits type of a size.
fn bits_ty(t: Ty) -> Ty {
    match t.size() {
        1 => Ty::B8,
        2 => Ty::B16,
        4 => Ty::B32,
        _ => Ty::B64,
    }
}

fn wide_ty(t: Ty) -> Option<Ty> {
    Some(match t {
        Ty::S16 => Ty::S32,
        Ty::U16 => Ty::U32,
        Ty::S32 => Ty::S64,
        Ty::U32 => Ty::U64,
        _ => return None,
    })
}

/// A special register's C++ value, or `None`.
fn special(name: &str) -> Option<String> {
    let dim = |base: &str| -> Option<String> {
        let (_, d) = name.split_once('.')?;
        matches!(d, "x" | "y" | "z").then(|| format!("((ptx_u32){base}.{d})"))
    };
    match name.split('.').next()? {
        "%tid" => dim("threadIdx"),
        "%ntid" => dim("blockDim"),
        "%ctaid" => dim("blockIdx"),
        "%nctaid" => dim("gridDim"),
        "%laneid" if name == "%laneid" => Some("ptx_laneid()".into()),
        "%lanemask_eq" | "%lanemask_lt" | "%lanemask_le" | "%lanemask_gt" | "%lanemask_ge" => {
            Some(format!("ptx_{}()", &name[1..]))
        }
        "%warpid" if name == "%warpid" => Some("ptx_warpid()".into()),
        "%clock" if name == "%clock" => Some("((ptx_u32)clock64())".into()),
        "%clock64" if name == "%clock64" => Some("((ptx_u64)clock64())".into()),
        "%dynamic_smem_size" if name == "%dynamic_smem_size" => {
            Some("ptx_dynamic_smem_size()".into())
        }
        // PTX's warp-size constant: a CUDA warp is 32 lanes on every GPU the translation runs on.
        "WARP_SZ" if name == "WARP_SZ" => Some("32u".into()),
        _ => None,
    }
}

/// Warp-level instructions: CUDA's 32-lane warps (the support header confines each to the
/// caller's half of a wave64 wavefront).
impl Fx {
    /// Checks the operand count of a warp instruction (`n` without its membermask).
    fn warp_operands(&self, i: &Inst, n: usize, sync: bool) -> Result<(), PtxError> {
        let want = n + usize::from(sync);
        if i.operands.len() == want {
            Ok(())
        } else {
            Err(PtxError::Syntax {
                line: i.line,
                column: i.col,
                message: format!(
                    "`{}` takes {want} operands, found {}",
                    i.opcode,
                    i.operands.len()
                ),
            })
        }
    }

    /// The membermask: the last operand of a `.sync` form; the active lanes otherwise (the
    /// pre-6.0 forms act on the warp's active threads).
    fn member_mask(&self, i: &Inst, sync: bool) -> Result<String, PtxError> {
        match (sync, i.operands.last()) {
            (true, Some(m)) => self.src(m, Ty::B32, i),
            _ => Ok("ptx_activemask()".into()),
        }
    }

    /// `d` or `d|p`: the value's destination and the optional predicate's.
    fn dest_pair(o: &Operand) -> (Operand, Option<Operand>) {
        match o {
            Operand::Pair(d, p) => {
                let d = if d == "_" {
                    Operand::Sink
                } else {
                    Operand::Name(d.clone())
                };
                (d, Some(Operand::Name(p.clone())))
            }
            d => (d.clone(), None),
        }
    }

    /// `shfl.sync.{up,down,bfly,idx}.b32 d[|p], a, b, c, membermask` (and `shfl.{mode}.b32`).
    fn shfl(&self, i: &Inst, mods: &[&str]) -> Result<String, PtxError> {
        let sync = mods.contains(&"sync");
        let mut mode = None;
        let mut ty = None;
        for m in mods {
            match *m {
                "sync" => {}
                "up" => mode = Some(0),
                "down" => mode = Some(1),
                "bfly" => mode = Some(2),
                "idx" => mode = Some(3),
                "b32" => ty = Some(Ty::B32),
                m => return unsupported(i, &format!("shfl with .{m}")),
            }
        }
        let (Some(mode), Some(_)) = (mode, ty) else {
            return unsupported(i, "shfl needs a mode (.up/.down/.bfly/.idx) and .b32");
        };
        self.warp_operands(i, 4, sync)?;
        let o = &i.operands;
        let a = self.src(&o[1], Ty::B32, i)?;
        let b = self.src(&o[2], Ty::B32, i)?;
        let c = self.src(&o[3], Ty::B32, i)?;
        let m = self.member_mask(i, sync)?;
        let (d, p) = Self::dest_pair(&o[0]);
        let mut code =
            format!("{{ bool p_; ptx_u32 v_ = ptx_shfl({mode}, {a}, {b}, {c}, {m}, p_); ");
        code.push_str(&self.assign(&d, "v_", Ty::B32, i)?);
        if let Some(p) = p {
            code.push(' ');
            code.push_str(&self.assign(&p, "p_", Ty::Pred, i)?);
        }
        code.push_str(" }");
        Ok(code)
    }

    /// `vote.sync.{all,any,uni}.pred`, `vote.sync.ballot.b32` (and the forms without `.sync`).
    fn vote(&self, i: &Inst, mods: &[&str]) -> Result<String, PtxError> {
        let sync = mods.contains(&"sync");
        let mut mode = None;
        let mut ty = None;
        for m in mods {
            match *m {
                "sync" => {}
                "all" | "any" | "uni" | "ballot" => mode = Some(*m),
                m => match Ty::from_suffix(m) {
                    Some(t) => ty = Some(t),
                    None => return unsupported(i, &format!("vote with .{m}")),
                },
            }
        }
        let Some(mode) = mode else {
            return unsupported(i, "vote needs a mode (.all/.any/.uni/.ballot)");
        };
        let want = if mode == "ballot" { Ty::B32 } else { Ty::Pred };
        if ty != Some(want) {
            return unsupported(i, "vote.ballot is .b32 and vote.all/.any/.uni are .pred");
        }
        self.warp_operands(i, 2, sync)?;
        let o = &i.operands;
        let a = self.src(&o[1], Ty::Pred, i)?;
        let m = self.member_mask(i, sync)?;
        let f = if mode == "ballot" {
            "ballot".to_owned()
        } else {
            format!("vote_{mode}")
        };
        self.assign(&o[0], &format!("ptx_{f}({a}, {m})"), want, i)
    }

    /// `match.{any,all}.sync.{b32,b64} d[|p], a, membermask`.
    fn match_(&self, i: &Inst, mods: &[&str]) -> Result<String, PtxError> {
        let mut mode = None;
        let mut ty = None;
        let mut sync = false;
        for m in mods {
            match *m {
                "sync" => sync = true,
                "any" | "all" => mode = Some(*m),
                "b32" => ty = Some(Ty::B32),
                "b64" => ty = Some(Ty::B64),
                m => return unsupported(i, &format!("match with .{m}")),
            }
        }
        let (Some(mode), Some(ty), true) = (mode, ty, sync) else {
            return unsupported(i, "match needs .any or .all, .sync, and .b32 or .b64");
        };
        self.warp_operands(i, 2, true)?;
        let o = &i.operands;
        let a = self.src(&o[1], ty, i)?;
        let m = self.member_mask(i, true)?;
        let bits = 8 * ty.size();
        let (d, p) = Self::dest_pair(&o[0]);
        if mode == "any" {
            if p.is_some() {
                return unsupported(i, "match.any has no predicate destination");
            }
            return self.assign(&d, &format!("ptx_match_any_b{bits}({a}, {m})"), Ty::B32, i);
        }
        let mut code = format!("{{ bool p_; ptx_u32 v_ = ptx_match_all_b{bits}({a}, {m}, p_); ");
        code.push_str(&self.assign(&d, "v_", Ty::B32, i)?);
        if let Some(p) = p {
            code.push(' ');
            code.push_str(&self.assign(&p, "p_", Ty::Pred, i)?);
        }
        code.push_str(" }");
        Ok(code)
    }

    /// `redux.sync.{add,min,max}.{u32,s32}` and `redux.sync.{and,or,xor}.b32`.
    fn redux(&self, i: &Inst, mods: &[&str]) -> Result<String, PtxError> {
        let mut op = None;
        let mut ty = None;
        let mut sync = false;
        for m in mods {
            match *m {
                "sync" => sync = true,
                "add" | "min" | "max" | "and" | "or" | "xor" => op = Some(*m),
                m => match Ty::from_suffix(m) {
                    Some(t) => ty = Some(t),
                    None => return unsupported(i, &format!("redux with .{m}")),
                },
            }
        }
        let (Some(op), Some(ty), true) = (op, ty, sync) else {
            return unsupported(i, "redux needs .sync, an operation and a type");
        };
        let (code, fits) = match op {
            "add" => (0, matches!(ty, Ty::U32 | Ty::S32)),
            "min" => (1, matches!(ty, Ty::U32 | Ty::S32)),
            "max" => (2, matches!(ty, Ty::U32 | Ty::S32)),
            "and" => (3, ty == Ty::B32),
            "or" => (4, ty == Ty::B32),
            _ => (5, ty == Ty::B32),
        };
        if !fits {
            return unsupported(
                i,
                "redux.sync is translated for .add/.min/.max on .u32/.s32 and .and/.or/.xor on .b32",
            );
        }
        self.warp_operands(i, 2, true)?;
        let o = &i.operands;
        let a = self.src(&o[1], Ty::B32, i)?;
        let m = self.member_mask(i, true)?;
        self.assign(
            &o[0],
            &format!("ptx_redux({code}, {}, {a}, {m})", ty.signed()),
            Ty::B32,
            i,
        )
    }
}

/// Half precision (`.f16`, `.bf16`) and packed pairs (`.f16x2`, `.bf16x2`), held as bits.
impl Fx {
    /// `add`/`sub`/`mul`/`fma`/`neg`/`abs`/`min`/`max` on halves: computed exactly in f64 and
    /// rounded once (the support header's `ptx_h_*`).
    fn harith(&self, i: &Inst, op: &str, mods: &[&str], t: Ty) -> Result<String, PtxError> {
        let o = &i.operands;
        let has = |m: &str| mods.contains(&m);
        let Some(fmt) = half_fmt(t) else {
            return unsupported(i, "not a half type");
        };
        for m in ["relu", "NaN", "xorsign", "oob", "satfinite", "approx"] {
            // min/max.NaN: a NaN operand gives the canonical NaN (the header's flag 4).
            if has(m) && !(m == "NaN" && matches!(op, "min" | "max")) {
                return unsupported(i, &format!(".{m} on halves is not translated yet"));
            }
        }
        let pair = matches!(t, Ty::F16x2 | Ty::Bf16x2);
        let mode = mode_of(mods).unwrap_or(0);
        let flags =
            u32::from(has("ftz")) | (u32::from(has("sat")) << 1) | (u32::from(has("NaN")) << 2);
        let bt = if pair { Ty::B32 } else { Ty::B16 };
        let n = match op {
            "neg" | "abs" => 1,
            "fma" | "mad" => 3,
            "add" | "sub" | "mul" | "min" | "max" => 2,
            _ => return unsupported(i, "this operation on halves is not translated yet"),
        };
        let args: Vec<String> = (1..=n)
            .map(|k| self.src(&o[k], bt, i))
            .collect::<Result<_, _>>()?;
        let one = |x: &[String]| -> String {
            match op {
                "add" | "sub" | "mul" => {
                    format!("ptx_h_{op}({}, {}, {mode}, {fmt}, {flags})", x[0], x[1])
                }
                "fma" | "mad" => format!(
                    "ptx_h_fma({}, {}, {}, {mode}, {fmt}, {flags})",
                    x[0], x[1], x[2]
                ),
                "min" | "max" => format!(
                    "ptx_h_minmax({}, {}, {}, {fmt}, {flags})",
                    x[0],
                    x[1],
                    op == "max"
                ),
                _ => format!("ptx_h_{op}({}, {fmt}, {flags})", x[0]),
            }
        };
        let v = if pair {
            let lo: Vec<String> = args.iter().map(|a| format!("ptx_lo({a})")).collect();
            let hi: Vec<String> = args.iter().map(|a| format!("ptx_hi({a})")).collect();
            format!("ptx_pack({}, {})", one(&lo), one(&hi))
        } else {
            one(&args)
        };
        self.assign(&o[0], &v, bt, i)
    }

    /// `cvt` between pairs of 8-bit floats (`.e4m3x2`, `.e5m2x2`, sm_89+) and halves or floats:
    /// - `cvt.rn{.relu}.f16x2.e4m3x2 d, a`: the two bytes of `a` to the two halves of `d`
    ///   (exact; NaN gives the canonical `0x7fff`, `.relu` a negative value `+0`);
    /// - `cvt.rn.satfinite{.relu}.e4m3x2.f32 d, a, b`: `a` to the upper byte, `b` to the lower;
    /// - `cvt.rn.satfinite{.relu}.e4m3x2.f16x2 d, a`: each half to its byte;
    ///
    /// and the same with `.e5m2x2`. Rounding is to nearest even; `.satfinite` clamps an
    /// out-of-range value (infinities included) to the largest finite of its sign.
    fn cvt_fp8(&self, i: &Inst, mods: &[&str]) -> Result<String, PtxError> {
        let o = &i.operands;
        let fp8 = |m: &str| match m {
            "e4m3x2" => Some(0u32),
            "e5m2x2" => Some(1u32),
            _ => None,
        };
        let has = |m: &str| mods.contains(&m);
        let relu = has("relu");
        let kinds: Vec<&str> = mods
            .iter()
            .copied()
            .filter(|m| !matches!(*m, "rn" | "relu" | "satfinite"))
            .collect();
        if !has("rn") || kinds.len() != 2 {
            return unsupported(i, "of the 8-bit float conversions, only cvt.rn{.satfinite}{.relu} between .e4m3x2/.e5m2x2 and .f16x2 or .f32 pairs are translated");
        }
        let arity = |n: usize| -> Result<(), PtxError> {
            if o.len() == n {
                Ok(())
            } else {
                Err(PtxError::Syntax {
                    line: i.line,
                    column: i.col,
                    message: format!("`{}` takes {n} operands", i.opcode),
                })
            }
        };
        match (kinds[0], kinds[1]) {
            ("f16x2", s) if fp8(s).is_some() => {
                arity(2)?;
                let f = fp8(s).unwrap_or(0);
                let a = self.src(&o[1], Ty::B16, i)?;
                let v = format!(
                    "ptx_pack(ptx_fp8_to_h((ptx_u32)({a}) & 0xffu, {f}, {relu}), ptx_fp8_to_h(((ptx_u32)({a}) >> 8) & 0xffu, {f}, {relu}))"
                );
                self.assign(&o[0], &v, Ty::B32, i)
            }
            (d, s) if fp8(d).is_some() && matches!(s, "f32" | "f16x2") => {
                if !has("satfinite") {
                    return unsupported(i, "a conversion into 8-bit floats is .satfinite (the PTX ISA requires it)");
                }
                let f = fp8(d).unwrap_or(0);
                let (hi, lo) = if s == "f32" {
                    arity(3)?;
                    (
                        format!("(double){}", self.src(&o[1], Ty::F32, i)?),
                        format!("(double){}", self.src(&o[2], Ty::F32, i)?),
                    )
                } else {
                    arity(2)?;
                    let a = self.src(&o[1], Ty::B32, i)?;
                    (
                        format!("ptx_h2d(ptx_hi({a}), 0, false)"),
                        format!("ptx_h2d(ptx_lo({a}), 0, false)"),
                    )
                };
                let v = format!(
                    "(ptx_u16)((ptx_d_to_fp8({hi}, {f}, {relu}) << 8) | ptx_d_to_fp8({lo}, {f}, {relu}))"
                );
                self.assign(&o[0], &v, Ty::B16, i)
            }
            _ => unsupported(i, "of the 8-bit float conversions, only cvt.rn{.satfinite}{.relu} between .e4m3x2/.e5m2x2 and .f16x2 or .f32 pairs are translated"),
        }
    }

    /// `cvt` to or from a half (and `cvt.{rnd}.f16x2.f32 d, a, b`: `a` to the upper half).
    fn cvt_half(&self, i: &Inst, mods: &[&str], types: &[Ty]) -> Result<String, PtxError> {
        let o = &i.operands;
        let (Some(&d), Some(&s)) = (types.first(), types.get(1)) else {
            return unsupported(i, "cvt needs two types");
        };
        let has = |m: &str| mods.contains(&m);
        for m in ["relu", "satfinite"] {
            if has(m) {
                return unsupported(i, &format!("cvt .{m} is not translated yet"));
            }
        }
        let mode = mode_of(mods).unwrap_or(0);
        let int_round = mods
            .iter()
            .any(|x| matches!(*x, "rni" | "rzi" | "rmi" | "rpi"));
        let sat = has("sat");
        let ftz = has("ftz");
        let pair = matches!(d, Ty::F16x2 | Ty::Bf16x2);
        let want = if pair { 3 } else { 2 };
        if o.len() != want {
            return Err(PtxError::Syntax {
                line: i.line,
                column: i.col,
                message: format!("`{}` takes {want} operands", i.opcode),
            });
        }
        if matches!(s, Ty::F16x2 | Ty::Bf16x2) || (pair && s != Ty::F32) {
            return unsupported(i, "this packed cvt is not translated yet");
        }
        // The source as an exact double (halves, floats, integers of 32 bits or fewer) or, for
        // a 64-bit integer into a half, the half directly.
        let to_half = |k: usize, df: u32| -> Result<String, PtxError> {
            let a = self.src(&o[k], s, i)?;
            let r = if let Some(sf) = half_fmt(s) {
                let x = format!("ptx_h2d({a}, {sf}, {ftz})");
                if int_round {
                    format!("ptx_round_h(ptx_rint_d({x}, {mode}), 0.0, 0, {df})")
                } else {
                    format!("ptx_round_h({x}, 0.0, {mode}, {df})")
                }
            } else if s.float() {
                if int_round {
                    return unsupported(i, "integer rounding into a half");
                }
                let a = if ftz && s == Ty::F32 {
                    format!("ptx_ftz({a})")
                } else {
                    a
                };
                let r = format!("ptx_round_h((double){a}, 0.0, {mode}, {df})");
                if s == Ty::F64 {
                    // An f64 NaN keeps its sign and the top of its payload in f16 and bf16 on
                    // NVIDIA, quieted (an H200 answered 0x7fb8, 0xff8f, 0x7e00, ...; bf16
                    // 0x7fc0, 0xffc0, 0x7fe0), unlike the canonical 0x7fff of half arithmetic
                    // and of f32 sources.
                    let nan = if df == 0 {
                        "ptx_f64_nan_to_h"
                    } else {
                        "ptx_f64_nan_to_bf"
                    };
                    format!("({a} != {a} ? {nan}({a}) : {r})")
                } else {
                    r
                }
            } else if s.size() == 8 {
                let f = if s.signed() { "s64" } else { "u64" };
                format!("ptx_{f}_to_h({a}, {mode}, {df})")
            } else {
                let w = if s.signed() { "ptx_s64" } else { "ptx_u64" };
                format!("ptx_round_h((double)({w}){a}, 0.0, {mode}, {df})")
            };
            Ok(if sat {
                format!("ptx_h_sat({r}, {df})")
            } else {
                r
            })
        };
        if let Some(df) = half_fmt(d) {
            if pair {
                let v = format!("ptx_pack({}, {})", to_half(2, df)?, to_half(1, df)?);
                return self.assign(&o[0], &v, Ty::B32, i);
            }
            let v = to_half(1, df)?;
            return self.assign(&o[0], &v, Ty::B16, i);
        }
        // From a half to f32, f64 or an integer.
        let Some(sf) = half_fmt(s) else {
            return unsupported(i, "cvt of these types");
        };
        let a = self.src(&o[1], Ty::B16, i)?;
        let f = format!("ptx_h2f({a}, {sf})");
        let v = match d {
            Ty::F32 | Ty::F64 => {
                let v = if int_round {
                    format!("ptx_rint_f({f}, {mode})")
                } else if d == Ty::F64 {
                    format!("ptx_h2d({a}, {sf}, false)")
                } else {
                    f
                };
                let v = if d == Ty::F64 && int_round {
                    format!("(double){v}")
                } else {
                    v
                };
                let v = if sat {
                    format!("ptx_sat_{}({v})", if d == Ty::F32 { "f" } else { "d" })
                } else {
                    v
                };
                if ftz && d == Ty::F32 {
                    format!("ptx_ftz({v})")
                } else {
                    v
                }
            }
            _ => {
                if !int_round {
                    return unsupported(i, "a half to an integer needs .rni/.rzi/.rmi/.rpi");
                }
                // As from f32 (a half is exactly an f32): NaN gives 0 into 32 bits or fewer.
                let r = format!("(double)ptx_rint_f({f}, {mode})");
                let bits = 8 * d.size();
                if d.signed() {
                    let (lo, hi) = if bits == 64 {
                        (
                            "(-9223372036854775807ll - 1)".to_owned(),
                            "9223372036854775807ll".to_owned(),
                        )
                    } else {
                        (
                            format!("{}ll", -(1i64 << (bits - 1))),
                            format!("{}ll", (1i64 << (bits - 1)) - 1),
                        )
                    };
                    let nan = if bits == 64 { lo.clone() } else { "0ll".into() };
                    format!("({})ptx_f2s({r}, {lo}, {hi}, {nan})", ctype(d))
                } else {
                    let hi = if bits == 64 {
                        u64::MAX
                    } else {
                        (1u64 << bits) - 1
                    };
                    let nan = if bits == 64 { 1u64 << 63 } else { 0 };
                    format!("({})ptx_f2u({r}, {hi}ull, {nan}ull)", ctype(d))
                }
            }
        };
        self.assign(&o[0], &v, d, i)
    }
}

impl Fx {
    /// Carry arithmetic: `add.cc`, `addc{.cc}`, `sub.cc`, `subc{.cc}`, `mad{.lo,.hi}.cc`,
    /// `madc{.lo,.hi}{.cc}` on 32- and 64-bit integers, through the function's carry flag
    /// `ptx_cf` (CC.CF: the carry out of an addition, the borrow out of a subtraction).
    fn carry(&self, i: &Inst, op: &str, mods: &[&str], t: Option<Ty>) -> Result<String, PtxError> {
        let has = |m: &str| mods.contains(&m);
        let t = match t {
            Some(t @ (Ty::U32 | Ty::S32 | Ty::U64 | Ty::S64 | Ty::B32 | Ty::B64)) => t,
            _ => {
                return unsupported(
                    i,
                    "carry arithmetic is translated on 32- and 64-bit integers",
                )
            }
        };
        let o = &i.operands;
        let mad = op.starts_with("mad");
        let n = if mad { 4 } else { 3 };
        if o.len() != n {
            return Err(PtxError::Syntax {
                line: i.line,
                column: i.col,
                message: format!("`{}` takes {n} operands, found {}", i.opcode, o.len()),
            });
        }
        let size = t.size();
        let ut = if size == 4 { "ptx_u32" } else { "ptx_u64" };
        let a = self.src(&o[1], t, i)?;
        let b = self.src(&o[2], t, i)?;
        let carry_in = op.ends_with('c');
        let cin = if carry_in {
            "(".to_owned() + ut + ")ptx_cf"
        } else {
            "0".into()
        };
        let set = has("cc");
        let (value, out) = if op.starts_with("sub") {
            // d = a - b - cin; borrow out when a < b, or the difference < cin.
            (
                format!("(({ut})({a}) - ({ut})({b})) - {cin}"),
                format!("(({ut})({a}) < ({ut})({b})) | ((({ut})({a}) - ({ut})({b})) < {cin})"),
            )
        } else {
            let x = if mad {
                if has("wide") {
                    return unsupported(i, "mad.wide with a carry is not translated");
                }
                let hi = has("hi");
                let bits = 8 * size;
                let sign = if t.signed() { "s" } else { "u" };
                let c = self.src(&o[3], t, i)?;
                let prod = if hi {
                    format!("({ut})ptx_mulhi_{sign}{bits}({a}, {b})")
                } else {
                    format!("(({ut})({a}) * ({ut})({b}))")
                };
                (prod, format!("({ut})({c})"))
            } else {
                (format!("({ut})({a})"), format!("({ut})({b})"))
            };
            let (p, q) = x;
            (
                format!("({p} + {q}) + {cin}"),
                format!("(({p} + {q}) < {p}) | (((({p} + {q}) + {cin})) < ({p} + {q}))"),
            )
        };
        let d = self.assign(&o[0], &format!("({})({value})", ctype(t)), t, i)?;
        Ok(if set {
            // The flag is computed from the inputs before the destination (which may be one of
            // them) is written.
            format!("{{ ptx_u32 ptx_cf_next = (ptx_u32)({out}); {d} ptx_cf = ptx_cf_next; }}")
        } else {
            d
        })
    }
}

//! Validation of NVRTC arguments shared by both backends, so bad input gets NVRTC's error
//! instead of reaching a vendor compiler that might crash on it.

use crate::rtc_headers::{builtin_headers, RtcTarget};
use anycuda_api::nvrtc::nvrtcResult;
use core::ffi::{c_char, c_int};
use std::ffi::{CStr, CString};
use std::sync::atomic::{AtomicBool, Ordering};

/// Returns `NVRTC_ERROR_INVALID_INPUT` from the enclosing function when any pointer is null
/// (the check NVRTC itself skips before dereferencing an out-pointer).
#[macro_export]
macro_rules! nvrtc_non_null {
    ($($p:expr),+) => {
        if $($p.is_null())||+ {
            return $crate::__api::nvrtc::nvrtcResult::NVRTC_ERROR_INVALID_INPUT;
        }
    };
}

/// The header list handed to the vendor compiler: the caller's headers, then anycuda's built-in
/// ones that the caller did not override (same include name).
#[derive(Debug)]
pub struct Headers {
    /// Include names, parallel to `sources`.
    pub names: Vec<*const c_char>,
    /// Header sources.
    pub sources: Vec<*const c_char>,
    /// How many of them are the caller's (they come first; the rest are anycuda's built-ins).
    pub user: usize,
    _owned: Vec<CString>,
}

impl Headers {
    /// The count as the C API wants it.
    pub fn len(&self) -> c_int {
        // Bounded by the caller's c_int count plus a few dozen built-ins.
        self.names.len() as c_int
    }
    /// Whether there are no headers at all.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
    /// Pointer to the include-name array, null when empty.
    pub fn names_ptr(&self) -> *const *const c_char {
        if self.names.is_empty() {
            core::ptr::null()
        } else {
            self.names.as_ptr()
        }
    }
    /// Pointer to the source array, null when empty.
    pub fn sources_ptr(&self) -> *const *const c_char {
        if self.sources.is_empty() {
            core::ptr::null()
        } else {
            self.sources.as_ptr()
        }
    }
}

/// Validates `nvrtcCreateProgram`'s header arrays and merges in the built-in headers.
///
/// # Errors
/// `NVRTC_ERROR_INVALID_INPUT` for a negative count, a null array with a positive count, or a
/// null entry.
///
/// # Safety
/// When non-null, `headers` and `include_names` must point to `num_headers` pointers, each null
/// or a NUL-terminated string.
pub unsafe fn merge_headers(
    target: RtcTarget,
    num_headers: c_int,
    headers: *const *const c_char,
    include_names: *const *const c_char,
) -> Result<Headers, nvrtcResult> {
    let invalid = nvrtcResult::NVRTC_ERROR_INVALID_INPUT;
    let n = usize::try_from(num_headers).map_err(|_| invalid)?;
    if n > 0 && (headers.is_null() || include_names.is_null()) {
        return Err(invalid);
    }
    let mut names = Vec::with_capacity(n);
    let mut sources = Vec::with_capacity(n);
    let mut user_names: Vec<&CStr> = Vec::with_capacity(n);
    for i in 0..n {
        // SAFETY: both arrays hold n entries (caller contract, non-null checked above).
        let (src, name) = unsafe { (*headers.add(i), *include_names.add(i)) };
        if src.is_null() || name.is_null() {
            return Err(invalid);
        }
        // SAFETY: non-null entries are NUL-terminated strings (caller contract).
        user_names.push(unsafe { CStr::from_ptr(name) });
        names.push(name);
        sources.push(src);
    }
    let mut owned = Vec::new();
    let builtins = if builtins_enabled(target) {
        builtin_headers(target)
    } else {
        &[]
    };
    for (name, src) in builtins {
        if user_names.iter().any(|u| u.to_bytes() == name.as_bytes()) {
            continue;
        }
        let (Ok(cn), Ok(cs)) = (CString::new(*name), CString::new(*src)) else {
            continue; // built-ins are ours and NUL-free; skip rather than fail if one is not
        };
        names.push(cn.as_ptr());
        sources.push(cs.as_ptr());
        owned.push(cn);
        owned.push(cs);
    }
    Ok(Headers {
        names,
        sources,
        user: n,
        _owned: owned,
    })
}

/// The variable that turns the built-in headers off (`0`, `false`, `off`, `no`) or on (any other
/// value), for both compilers, whatever the default.
pub const BUILTIN_HEADERS_ENV: &str = "ANYCUDA_BUILTIN_HEADERS";

/// Whether NVRTC gets the built-in headers when [`BUILTIN_HEADERS_ENV`] is unset.
static NVRTC_BUILTINS_DEFAULT: AtomicBool = AtomicBool::new(true);

/// Sets whether NVRTC gets the built-in headers when [`BUILTIN_HEADERS_ENV`] is unset (on until
/// set). The C ABI turns it off: there anycuda stands in for NVIDIA's own `libnvrtc`, whose
/// programs see exactly the headers they name and those found through their `-I` options, and a
/// built-in would shadow a real header of the same name (NVRTC gives in-memory headers priority
/// over `-I`; cuda.core's and CuPy's kernels, which include CCCL's `<cuda/std/...>` from their
/// include paths, failed to compile that way on an H200). hipRTC keeps them: there they are what
/// makes CUDA source compile at all.
pub fn set_nvrtc_builtins_default(on: bool) {
    NVRTC_BUILTINS_DEFAULT.store(on, Ordering::Relaxed);
}

/// Whether built-in headers are merged in for `target` (read at each `nvrtcCreateProgram`):
/// [`BUILTIN_HEADERS_ENV`] when set, else on for hipRTC and, for NVRTC, the default of
/// [`set_nvrtc_builtins_default`].
pub fn builtins_enabled(target: RtcTarget) -> bool {
    match std::env::var(BUILTIN_HEADERS_ENV) {
        Ok(v) => !matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "0" | "false" | "off" | "no"
        ),
        Err(_) => match target {
            RtcTarget::Nvrtc => NVRTC_BUILTINS_DEFAULT.load(Ordering::Relaxed),
            RtcTarget::Hiprtc => true,
        },
    }
}

/// [`builtins_enabled`] for NVRTC and hipRTC, as cache-key bytes: whether the built-ins were
/// merged in decides what a cached compile holds.
pub fn builtins_key() -> [u8; 2] {
    [
        u8::from(builtins_enabled(RtcTarget::Nvrtc)),
        u8::from(builtins_enabled(RtcTarget::Hiprtc)),
    ]
}

/// Validates `nvrtcCompileProgram`'s option array.
///
/// # Errors
/// `NVRTC_ERROR_INVALID_OPTION` for a null array with a positive count (NVIDIA's answer);
/// `NVRTC_ERROR_INVALID_INPUT` for a negative count or a null option.
///
/// # Safety
/// When non-null, `options` must point to `num_options` pointers, each null or a NUL-terminated
/// string that outlives the returned slice.
pub unsafe fn options<'a>(
    num_options: c_int,
    options: *const *const c_char,
) -> Result<Vec<&'a CStr>, nvrtcResult> {
    let invalid = nvrtcResult::NVRTC_ERROR_INVALID_INPUT;
    let n = usize::try_from(num_options).map_err(|_| invalid)?;
    if n > 0 && options.is_null() {
        // NVIDIA's NVRTC answers a missing option array as an invalid option (the C ABI's
        // differential fuzzer).
        return Err(nvrtcResult::NVRTC_ERROR_INVALID_OPTION);
    }
    (0..n)
        .map(|i| {
            // SAFETY: the array holds n entries (caller contract).
            let p = unsafe { *options.add(i) };
            if p.is_null() {
                Err(invalid)
            } else {
                // SAFETY: non-null entries are NUL-terminated (caller contract).
                Ok(unsafe { CStr::from_ptr(p) })
            }
        })
        .collect()
}

/// The deepest expression nesting anycuda lets a vendor compiler see, in the units of
/// [`nesting_depth`].
///
/// Measured with NVRTC 13.5 (x86-64) on threads of known stack size (64 MiB): one unit costs
/// at most about 4.4 KiB of the compiler's stack (a bracket level inside a `return`, a cast, a
/// `?:`; a prefix operator or an assignment costs less), so 100,000 units need about 440 MiB,
/// and [`COMPILE_STACK`] leaves a margin above two. hipRTC (clang) stops brackets at 256 levels
/// by itself but not prefix operators, casts or ternaries; its units are cheaper.
pub const MAX_NESTING: usize = 100_000;

/// The stack reserved for the thread every compile runs on: 1 GiB of address space, which costs
/// memory only for the pages a deep program touches.
pub const COMPILE_STACK: usize = 1 << 30;

/// What a macro definition contributes where it is used.
#[derive(Clone, Copy, Debug, Default)]
struct MacroDepth {
    /// The deepest nesting inside its body (units).
    gain: usize,
    /// What its body leaves open (unbalanced brackets, a dangling prefix-operator or `?:`
    /// chain), which stays open where it is used.
    residual: usize,
    /// Whether it takes arguments (its gain then wraps what its parentheses hold).
    function_like: bool,
}

/// One open bracket (or the file itself) and the right-recursive chain pending inside it.
#[derive(Clone, Copy, Debug, Default)]
struct Frame {
    /// What opening this frame cost (1 for a bracket, a macro's gain for `M(`).
    weight: usize,
    /// Prefix operators and casts not yet closed by their operand.
    prefix: usize,
    /// `?`, `:` and assignments not yet closed by the end of the expression.
    chain: usize,
    /// Template `<` not yet closed by `>`.
    angle: usize,
    /// `else if` links of one chain (each nests the next).
    else_if: usize,
    /// Units that macros with unbalanced bodies left open here.
    residual: usize,
}

impl Frame {
    fn units(&self) -> usize {
        self.weight + self.prefix + self.chain + self.angle + self.else_if + self.residual
    }
}

/// A cheap over-estimate of how deep a compiler's parser recurses on `src`: a bound by class,
/// not a C++ parser. It counts, in one pass, skipping comments and string and character
/// literals (raw strings included):
/// - brackets of every kind, `(`, `[` and `{`, and template angle brackets (`<` until its `>`,
///   or until the end of the expression);
/// - right-recursive chains until the expression ends (`;`, `,`, `{`, `}`, a closing bracket or
///   the end of a directive line): prefix operators (`- + ! ~ * & ++ --` and `&&`, `*` and `&`
///   counted even when binary, which also covers declarators), casts (a `)` followed by an
///   operand), `?`, `:` and every assignment operator; prefix operators and casts end at their
///   operand;
/// - `else if` chains, and statements nested without braces (`if (a) if (b) ...`, as casts);
/// - macros: every `#define` gets the depth of its body, and a use adds it (an object-like
///   macro adds what its body leaves open for good, so `#define L (` / `#define L2 L L` /
///   ... is counted at its full expansion; a function-like one weighs its parentheses by the
///   depth its body wraps them in, so `#define W2(x) W(W(x))` doubling is counted too).
///
/// What it cannot see: token pasting and stringizing that make new macro names, `#include`d
/// files it is not given (a compile's headers are scanned by [`program_depth`]), and
/// recursion no bracket, operator or macro shows. Binary operators are not counted: NVRTC and
/// clang parse `a + b + ...` iteratively (500,000 terms compile on a 64 MiB thread).
pub fn nesting_depth(src: &[u8]) -> usize {
    let mut macros: std::collections::HashMap<&[u8], MacroDepth> = Default::default();
    scan(src, &mut macros, false).0
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

/// Scans `src`; `(max units, units open at the end)`. `body` scans one macro body.
fn scan<'s>(
    src: &'s [u8],
    macros: &mut std::collections::HashMap<&'s [u8], MacroDepth>,
    body: bool,
) -> (usize, usize) {
    let mut frames: Vec<Frame> = vec![Frame::default()];
    let mut total = 0usize; // sum of units over the frames
    let mut max = 0usize;
    // Whether the last token ended an operand (identifier, literal, `)`, `]`).
    let mut after_operand = false;
    // Whether the last token was `)` (a cast when an operand follows).
    let mut after_close = false;
    let mut after_else = false;
    let mut line_start = true;
    let mut i = 0usize;
    let n = src.len();
    macro_rules! top {
        () => {
            frames.last_mut().expect("the file frame is never popped")
        };
    }
    macro_rules! bump {
        ($field:ident, $by:expr) => {{
            let by: usize = $by;
            top!().$field += by;
            total += by;
            max = max.max(total);
        }};
    }
    macro_rules! end_expr {
        () => {{
            let f = top!();
            total -= f.prefix + f.chain + f.angle;
            f.prefix = 0;
            f.chain = 0;
            f.angle = 0;
        }};
    }
    while i < n {
        let c = src[i];
        // Preprocessor directives: `#define` records a macro; every directive ends at its
        // line's end (a backslash-newline continues it), which ends the expression.
        if line_start && !body {
            let mut j = i;
            while j < n && (src[j] == b' ' || src[j] == b'\t') {
                j += 1;
            }
            if j < n && src[j] == b'#' {
                let end = directive_end(src, j);
                define(&src[j + 1..end], macros);
                i = end;
                end_expr!();
                after_operand = false;
                after_close = false;
                continue;
            }
        }
        line_start = false;
        match c {
            b'\n' => {
                line_start = true;
                i += 1;
                continue;
            }
            b' ' | b'\t' | b'\r' | 0x0b | 0x0c => {
                i += 1;
                continue;
            }
            b'/' if src.get(i + 1) == Some(&b'/') => {
                while i < n && src[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'/' if src.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < n && !(src[i] == b'*' && src.get(i + 1) == Some(&b'/')) {
                    i += 1;
                }
                i = (i + 2).min(n);
                continue;
            }
            _ => {}
        }
        let starts_operand = is_ident(c) || c == b'"' || c == b'\'' || c == b'(';
        if after_close {
            if starts_operand {
                bump!(prefix, 1); // `(T) x`: a cast (or an unbraced statement after `if (a)`)
            } else {
                end_prefix(&mut frames, &mut total); // `-(x) + y`: `(x)` was the operand
            }
        }
        after_close = false;
        if c == b'"' || (c == b'\'' && !(i > 0 && is_ident(src[i - 1]) && !prefix_ok(src, i))) {
            i = skip_literal(src, i);
            after_operand = true;
            end_prefix(&mut frames, &mut total);
            continue;
        }
        if is_ident(c) {
            let start = i;
            while i < n && is_ident(src[i]) {
                i += 1;
            }
            let word = &src[start..i];
            // Raw string literal: R"delim( ... )delim" (with an encoding prefix or not).
            if i < n && src[i] == b'"' && word.ends_with(b"R") {
                i = skip_raw(src, i);
                after_operand = true;
                end_prefix(&mut frames, &mut total);
                continue;
            }
            if word == b"else" {
                after_else = true;
                after_operand = false;
                continue;
            }
            if after_else {
                if word == b"if" {
                    bump!(else_if, 1);
                } else {
                    let f = top!();
                    total -= f.else_if;
                    f.else_if = 0;
                }
                after_else = false;
            }
            if let Some(m) = (!macros.is_empty())
                .then(|| macros.get(word).copied())
                .flatten()
            {
                let mut j = i;
                while j < n && src[j].is_ascii_whitespace() {
                    j += 1;
                }
                if m.function_like && j < n && src[j] == b'(' {
                    frames.push(Frame {
                        weight: m.gain.max(1),
                        ..Frame::default()
                    });
                    total += m.gain.max(1);
                    max = max.max(total);
                    bump!(residual, m.residual);
                    i = j + 1;
                    after_operand = false;
                    continue;
                }
                max = max.max(total + m.gain);
                bump!(residual, m.residual);
            }
            if matches!(
                word,
                b"sizeof"
                    | b"alignof"
                    | b"new"
                    | b"delete"
                    | b"throw"
                    | b"co_await"
                    | b"not"
                    | b"compl"
            ) {
                bump!(prefix, 1);
                after_operand = false;
            } else if matches!(
                word,
                b"return"
                    | b"case"
                    | b"if"
                    | b"while"
                    | b"for"
                    | b"switch"
                    | b"do"
                    | b"const"
                    | b"volatile"
                    | b"unsigned"
                    | b"signed"
                    | b"struct"
                    | b"class"
                    | b"typename"
            ) {
                // Keywords that start or qualify something: no operand yet.
                after_operand = false;
            } else {
                after_operand = true;
                end_prefix(&mut frames, &mut total);
            }
            continue;
        }
        after_else = false;
        // Punctuation (longest match first).
        let c1 = src.get(i + 1).copied().unwrap_or(0);
        let c2 = src.get(i + 2).copied().unwrap_or(0);
        let len = match (c, c1) {
            (b'<', b'<') | (b'>', b'>') => 2 + usize::from(c2 == b'='),
            (b'-', b'>') => 2 + usize::from(c2 == b'*'),
            (b'.', b'.') if c2 == b'.' => 3,
            (b':', b':')
            | (b'+', b'+')
            | (b'-', b'-')
            | (b'&', b'&')
            | (b'|', b'|')
            | (b'<' | b'>' | b'=' | b'!', b'=')
            | (b'+' | b'-' | b'*' | b'/' | b'%' | b'&' | b'|' | b'^', b'=')
            | (b'.', b'*') => 2,
            _ => 1,
        };
        let tok: &[u8] = &src[i..(i + len).min(n)];
        i += len;
        match tok {
            b"(" | b"[" | b"{" => {
                if tok == b"{" {
                    end_expr!();
                }
                frames.push(Frame {
                    weight: 1,
                    ..Frame::default()
                });
                total += 1;
                max = max.max(total);
                after_operand = false;
            }
            b")" | b"]" | b"}" => {
                if frames.len() > 1 {
                    let f = frames.pop().expect("len > 1");
                    total -= f.units();
                }
                if tok == b"}" {
                    end_expr!();
                }
                after_operand = tok != b"}";
                after_close = tok == b")";
                if tok == b"]" {
                    end_prefix(&mut frames, &mut total);
                }
            }
            b";" | b"," => {
                end_expr!();
                after_operand = false;
            }
            b"<" => {
                bump!(angle, 1);
                after_operand = false;
            }
            b">" | b">>" => {
                let f = top!();
                let k = tok.len().min(f.angle);
                f.angle -= k;
                total -= k;
                after_operand = false;
            }
            b"*" | b"&" | b"&&" => {
                bump!(prefix, 1);
                after_operand = false;
            }
            b"-" | b"+" | b"!" | b"~" | b"++" | b"--" => {
                if !after_operand || matches!(tok, b"!" | b"~") {
                    bump!(prefix, tok.len()); // `------x` is `-- -- --x`: count per sign
                }
                // `x++`: postfix, still an operand.
                after_operand = after_operand && matches!(tok, b"++" | b"--");
            }
            b"?" | b":" | b"=" | b"+=" | b"-=" | b"*=" | b"/=" | b"%=" | b"&=" | b"|=" | b"^="
            | b"<<=" | b">>=" => {
                bump!(chain, 1);
                after_operand = false;
            }
            _ => after_operand = false,
        }
    }
    (max, total)
}

/// Ends the prefix operators and casts of the current frame at their operand.
fn end_prefix(frames: &mut [Frame], total: &mut usize) {
    if let Some(f) = frames.last_mut() {
        *total -= f.prefix;
        f.prefix = 0;
    }
}

/// Whether the `'` at `i` follows an encoding prefix (`u8'a'`, `L'a'`) and so starts a literal.
fn prefix_ok(src: &[u8], i: usize) -> bool {
    let mut j = i;
    while j > 0 && is_ident(src[j - 1]) {
        j -= 1;
    }
    matches!(&src[j..i], b"u8" | b"u" | b"U" | b"L")
}

/// The index after the string or character literal starting at `i` (it ends at its closing
/// quote or, unterminated, at the line's end, as the compilers' lexers end it).
fn skip_literal(src: &[u8], i: usize) -> usize {
    let q = src[i];
    let mut j = i + 1;
    while j < src.len() {
        match src[j] {
            b'\\' => j += 2,
            b'\n' => return j,
            b if b == q => return j + 1,
            _ => j += 1,
        }
    }
    src.len()
}

/// The index after the raw string whose `"` is at `i`.
fn skip_raw(src: &[u8], i: usize) -> usize {
    let open = match src[i + 1..].iter().take(17).position(|b| *b == b'(') {
        Some(p) => i + 1 + p,
        None => return skip_literal(src, i), // not a valid raw string: lex it as a plain one
    };
    let delim = &src[i + 1..open];
    let mut close = Vec::with_capacity(delim.len() + 2);
    close.push(b')');
    close.extend_from_slice(delim);
    close.push(b'"');
    src[open..]
        .windows(close.len())
        .position(|w| w == close.as_slice())
        .map_or(src.len(), |p| open + p + close.len())
}

/// The index of the newline ending the directive starting at `i` (or the end).
fn directive_end(src: &[u8], i: usize) -> usize {
    let mut j = i;
    while j < src.len() {
        match src[j] {
            b'\\' if src.get(j + 1) == Some(&b'\n') => j += 2,
            b'\\' if src.get(j + 1) == Some(&b'\r') && src.get(j + 2) == Some(&b'\n') => j += 3,
            b'\n' => return j,
            _ => j += 1,
        }
    }
    src.len()
}

/// Records a `#define` (the directive's text after `#`) in `macros`.
fn define<'s>(d: &'s [u8], macros: &mut std::collections::HashMap<&'s [u8], MacroDepth>) {
    let d = d.trim_ascii_start();
    let Some(rest) = d.strip_prefix(b"define") else {
        return;
    };
    let rest = rest.trim_ascii_start();
    let len = rest.iter().take_while(|b| is_ident(**b)).count();
    if len == 0 {
        return;
    }
    let (name, mut body) = rest.split_at(len);
    let function_like = body.first() == Some(&b'(');
    if function_like {
        let close = body
            .iter()
            .position(|b| *b == b')')
            .map_or(body.len(), |p| p + 1);
        body = &body[close..];
    }
    let (gain, residual) = scan(body, macros, true);
    let m = macros.entry(name).or_default();
    // Several definitions (under #if): keep the deepest of each.
    m.gain = m.gain.max(gain);
    m.residual = m.residual.max(residual);
    m.function_like |= function_like;
}

/// The deepest nesting over a program's source and the caller's headers, in the units of
/// [`nesting_depth`].
///
/// # Safety
/// `src` and every entry of `headers.sources` must be NUL-terminated strings.
pub unsafe fn program_depth(src: *const c_char, headers: &Headers) -> usize {
    // Headers first, in one macro table: a header's macros may be used by the source.
    // anycuda's built-in headers are known to be shallow and are not scanned (they are large,
    // and every nvrtcCreateProgram would pay for it).
    let texts: Vec<&[u8]> = headers.sources[..headers.user]
        .iter()
        .copied()
        .chain(core::iter::once(src))
        // SAFETY: NUL-terminated (caller contract).
        .map(|p| unsafe { CStr::from_ptr(p) }.to_bytes())
        .collect();
    let mut macros = Default::default();
    texts
        .iter()
        .map(|t| scan(t, &mut macros, false).0)
        .max()
        .unwrap_or(0)
}

/// The log line for a program nested deeper than [`MAX_NESTING`].
pub fn too_deep_note(depth: usize) -> String {
    format!(
        "anycuda: error: expressions, brackets and macros nest {depth} levels deep; the limit \
         is {MAX_NESTING} (deeper input overflows the compiler's stack and kills the process)\n"
    )
}

/// Why a compile did not run on its own thread.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CompileThreadError {
    /// The thread could not be created (address space or thread limits): there is no
    /// fallback to the caller's thread, whose small stack deep input overflows.
    #[error("could not create the {COMPILE_STACK}-byte compile thread: {0}")]
    Spawn(String),
    /// The compile panicked (a bug in anycuda).
    #[error("the compile thread panicked")]
    Panicked,
}

impl CompileThreadError {
    /// The NVRTC code the caller returns: `NVRTC_ERROR_OUT_OF_MEMORY` when the thread could
    /// not be made, `NVRTC_ERROR_INTERNAL_ERROR` for a panic.
    pub fn code(&self) -> nvrtcResult {
        match self {
            Self::Spawn(_) => nvrtcResult::NVRTC_ERROR_OUT_OF_MEMORY,
            Self::Panicked => nvrtcResult::NVRTC_ERROR_INTERNAL_ERROR,
        }
    }
    /// The line for the program log.
    pub fn note(&self) -> String {
        format!("anycuda: error: {self}\n")
    }
}

/// Runs `f` (a compile) on a fresh thread with a [`COMPILE_STACK`] stack, so the depth a
/// compiler reaches does not depend on the caller's thread; NVRTC on a 2 MiB thread aborts on
/// inputs it handles on the main thread.
///
/// # Errors
/// [`CompileThreadError::Spawn`] when no such thread can be made (address space exhausted,
/// `ulimit -v`): `f` is then not run at all, never on the caller's small stack;
/// [`CompileThreadError::Panicked`] if `f` panicked.
pub fn on_compile_stack<R: Send>(f: impl FnOnce() -> R + Send) -> Result<R, CompileThreadError> {
    let stack = test_stack_override().unwrap_or(COMPILE_STACK);
    // The compile works for the caller: it carries the caller's C-ABI re-entry mark.
    let mark = anycuda_api::reentry::current();
    std::thread::scope(|s| {
        let h = std::thread::Builder::new()
            .name("anycuda-compile".into())
            .stack_size(stack)
            .spawn_scoped(s, move || {
                anycuda_api::reentry::set(mark);
                f()
            })
            .map_err(|e| {
                log::error!("no {stack}-byte compile thread ({e}); the compile is refused");
                CompileThreadError::Spawn(e.to_string())
            })?;
        h.join().map_err(|_| CompileThreadError::Panicked)
    })
}

/// `ANYCUDA_TEST_COMPILE_STACK` (bytes), read only in debug builds, so a test can make the
/// thread fail to spawn without lowering the whole process's limits.
fn test_stack_override() -> Option<usize> {
    if cfg!(debug_assertions) {
        std::env::var("ANYCUDA_TEST_COMPILE_STACK")
            .ok()?
            .parse()
            .ok()
    } else {
        None
    }
}

/// Carries raw pointers into the compile thread of [`on_compile_stack`]; sound because that
/// thread is joined before the call that made the pointers returns.
#[derive(Debug)]
pub struct AssertSend<T>(pub T);

// SAFETY: see the type's doc: the pointers are used only while their owner waits for the thread.
unsafe impl<T> Send for AssertSend<T> {}

impl<T> AssertSend<T> {
    /// The value (a method, so a closure captures the whole wrapper, not its field).
    pub fn into_inner(self) -> T {
        self.0
    }
}

/// Copies `data` to a caller buffer.
///
/// # Errors
/// `NVRTC_ERROR_INVALID_INPUT` when `out` is null.
///
/// # Safety
/// A non-null `out` must have room for `data.len()` bytes (the size the matching `*Size` call
/// reported).
pub unsafe fn copy_out(data: &[u8], out: *mut c_char) -> Result<(), nvrtcResult> {
    if out.is_null() {
        return Err(nvrtcResult::NVRTC_ERROR_INVALID_INPUT);
    }
    // SAFETY: room for data.len() bytes (caller contract); regions cannot overlap (ours is owned).
    unsafe { core::ptr::copy_nonoverlapping(data.as_ptr(), out.cast::<u8>(), data.len()) };
    Ok(())
}

/// Writes a size to a caller pointer.
///
/// # Errors
/// `NVRTC_ERROR_INVALID_INPUT` when `out` is null.
///
/// # Safety
/// A non-null `out` must be writable.
pub unsafe fn write_size(size: usize, out: *mut usize) -> Result<(), nvrtcResult> {
    if out.is_null() {
        return Err(nvrtcResult::NVRTC_ERROR_INVALID_INPUT);
    }
    // SAFETY: non-null and writable (caller contract).
    unsafe { *out = size };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use anycuda_api::reentry;

    /// The compile thread works under its caller's re-entry mark, whichever it is.
    #[test]
    fn a_compile_thread_carries_its_callers_mark() {
        for mark in [1, 0] {
            reentry::set(mark);
            let seen = on_compile_stack(reentry::current).unwrap();
            assert_eq!(seen, mark);
        }
        // A thread started any other way starts unmarked.
        reentry::set(1);
        assert_eq!(std::thread::spawn(reentry::current).join().unwrap(), 0);
        reentry::set(0);
    }

    #[test]
    fn user_headers_override_builtins_by_name() {
        let all = builtin_headers(RtcTarget::Nvrtc);
        let name = CString::new(all[0].0).unwrap();
        let src = c"// mine";
        let (names, srcs) = ([name.as_ptr()], [src.as_ptr()]);
        let h =
            // SAFETY: one header: `srcs` and `names` each hold one pointer to a live NUL-terminated
            // string (`src` is a static literal, `name` a `CString` that outlives the call).
            unsafe { merge_headers(RtcTarget::Nvrtc, 1, srcs.as_ptr(), names.as_ptr()) }.unwrap();
        assert_eq!(
            h.len() as usize,
            all.len(),
            "the user's header replaces the built-in one"
        );
        assert_eq!(h.sources[0], src.as_ptr());
        let got: Vec<&CStr> = h
            .names
            .iter()
            // SAFETY: every entry of `h.names` points either at `name` (still alive in this test)
            // or at a built-in name that `h` owns and keeps alive while `got` is used.
            .map(|p| unsafe { CStr::from_ptr(*p) })
            .collect();
        assert_eq!(got.iter().filter(|n| **n == name.as_c_str()).count(), 1);
    }

    fn deep(pre: &str, unit: &str, n: usize, post: &str) -> usize {
        nesting_depth(format!("{pre}{}{post}", unit.repeat(n)).as_bytes())
    }

    #[test]
    fn every_class_of_deep_expression_is_counted() {
        let n = 1000;
        let f = "__device__ int f(int x) { return ";
        for (unit, per) in [
            ("-", 1),
            ("!", 1),
            ("~", 1),
            ("*&", 2),
            ("(int)", 1),
            ("x?1:", 2),
            ("x=", 1),
            ("x+=", 1),
            ("(", 1),
            ("[", 1),
            ("{", 1),
            ("A<", 1),
            ("- -", 2),
            ("sizeof ", 1),
            ("++", 1),
        ] {
            let d = deep(f, unit, n, "x; }");
            assert!(d >= n * per, "{unit:?}: {d} < {}", n * per);
        }
        // Unbraced statement nesting and else-if chains.
        assert!(deep("void f(int a) { ", "if (a) ", n, "a = 1; }") >= n);
        assert!(
            deep(
                "void f(int a) { if (a) a = 1; ",
                "else if (a) a = 1; ",
                n,
                "}"
            ) >= n
        );
    }

    #[test]
    fn punctuation_is_tokenised_longest_first() {
        // `<<=` is one assignment, not a template `<` left open; `->` is no prefix operator.
        assert_eq!(nesting_depth(b"void f() { x <<= 1; p->q = 2; }"), 2);
        assert_eq!(nesting_depth(b"int a = b >> 2;"), 1);
        assert!(nesting_depth(b"A<B<C>> x; int y = 1;") <= 3);
    }

    #[test]
    fn ordinary_code_stays_shallow() {
        let k = "extern \"C\" __global__ void k(float *p, int n) {\n\
                 int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] = -p[i] * 2.0f;\n\
                 for (int j = 0; j < n; ++j) { p[j] += (float)j; }\n}\n";
        let src = k.repeat(20_000);
        let d = nesting_depth(src.as_bytes());
        assert!(d < 20, "{d}");
        // Binary chains are iterative in both parsers.
        assert!(deep("int x = ", "1 + ", 200_000, "1;") < 10);
        // a < b comparisons end with their statement.
        assert!(deep("", "b = a < c;\n", 200_000, "") < 10);
    }

    #[test]
    fn comments_and_literals_hide_nothing_they_should_not() {
        assert_eq!(deep("/* ", "(", 5000, " */ int x;"), 0);
        assert!(deep("// ", "(", 50, "") == 0);
        assert_eq!(deep("const char *s = \"", "(", 5000, "\";"), 1);
        assert!(deep("const char *s = R\"x(\")x\" ", "(", 5000, "") >= 5000);
        // A digit separator is not a character literal.
        assert!(deep("int x = 1'000 + ", "(", 5000, "") >= 5000);
        // An unterminated literal ends at the line's end.
        assert!(deep("char c = 'a;\n", "(", 5000, "") >= 5000);
    }

    #[test]
    fn macros_are_counted_at_their_expansion() {
        // Object-like macros with unbalanced bodies, doubled 17 times: 131072 brackets.
        let mut src = String::from("#define L0 (\n");
        for k in 1..=17 {
            src.push_str(&format!("#define L{k} L{} L{}\n", k - 1, k - 1));
        }
        src.push_str("int f() { return L17 1; }\n");
        assert!(nesting_depth(src.as_bytes()) >= 131_072);
        // Function-like wrapping, doubled.
        let mut src = String::from("#define W0(x) (-(x))\n");
        for k in 1..=17 {
            src.push_str(&format!("#define W{k}(x) W{}(W{}(x))\n", k - 1, k - 1));
        }
        src.push_str("int f(int y) { return W17(y); }\n");
        assert!(
            nesting_depth(src.as_bytes()) >= 131_072,
            "{}",
            nesting_depth(src.as_bytes())
        );
        // A prefix operator macro.
        let src = format!(
            "#define N -\nint f(int y) {{ return {}y; }}",
            "N ".repeat(5000)
        );
        assert!(nesting_depth(src.as_bytes()) >= 5000);
    }

    #[test]
    fn bad_header_arrays_are_invalid_input() {
        let bad = nvrtcResult::NVRTC_ERROR_INVALID_INPUT;
        let null = core::ptr::null();
        assert_eq!(
            // SAFETY: a negative count is refused before either (null) array is read.
            unsafe { merge_headers(RtcTarget::Hiprtc, -1, null, null) }.unwrap_err(),
            bad
        );
        assert_eq!(
            // SAFETY: null arrays with a non-zero count are refused before anything is read through
            // them.
            unsafe { merge_headers(RtcTarget::Hiprtc, 2, null, null) }.unwrap_err(),
            bad
        );
        let entries = [core::ptr::null::<c_char>()];
        assert_eq!(
            // SAFETY: `entries` is a live one-element array of a null pointer, which the contract
            // allows (and `merge_headers` must refuse).
            unsafe { merge_headers(RtcTarget::Hiprtc, 1, entries.as_ptr(), entries.as_ptr()) }
                .unwrap_err(),
            bad
        );
        // SAFETY: `entries` is a live one-element array holding a null entry, which the contract
        // allows; `options` refuses it without dereferencing it.
        assert_eq!(unsafe { options(1, entries.as_ptr()) }.unwrap_err(), bad);
        // SAFETY: a negative count is refused before the (null) array is read.
        assert_eq!(unsafe { options(-3, null) }.unwrap_err(), bad);
    }
}

//! The PTX parser: tokens to a [`Module`]. Every malformed input is a [`PtxError::Syntax`]
//! naming its line and column; nothing here panics or recurses without a bound.

use super::ast::{Function, Inst, Linkage, Module, Operand, Param, Space, Stmt, Ty, VarDecl};
use super::lex::{lex, Tok, Token};
use super::PtxError;

/// The deepest nesting of `{ }` blocks accepted (NVVM's call sequences nest one deep).
const MAX_DEPTH: u32 = 64;
/// The largest `%r<N>` register range accepted.
const MAX_REGS: u64 = 1 << 20;

/// Parses PTX text.
///
/// # Errors
/// [`PtxError::Syntax`] with the line and column of the first malformed token.
pub fn parse(src: &str) -> Result<Module, PtxError> {
    let toks = lex(src)?;
    let mut p = Parser { t: toks, i: 0 };
    p.module()
}

struct Parser {
    t: Vec<Token>,
    i: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.t.get(self.i).map(|t| &t.tok)
    }
    fn pos(&self) -> (u32, u32) {
        match self.t.get(self.i).or_else(|| self.t.last()) {
            Some(t) => (t.line, t.col),
            None => (1, 1),
        }
    }
    fn err<T>(&self, m: impl Into<String>) -> Result<T, PtxError> {
        let (line, column) = self.pos();
        let at_end = self.i >= self.t.len();
        let mut message = m.into();
        if at_end {
            message.push_str(" (at the end of the input)");
        }
        Err(PtxError::Syntax {
            line,
            column,
            message,
        })
    }
    fn next(&mut self) -> Option<Tok> {
        let t = self.t.get(self.i).map(|t| t.tok.clone());
        if t.is_some() {
            self.i += 1;
        }
        t
    }
    fn is_punct(&self, c: char) -> bool {
        self.peek() == Some(&Tok::Punct(c))
    }
    fn eat_punct(&mut self, c: char) -> bool {
        let y = self.is_punct(c);
        if y {
            self.i += 1;
        }
        y
    }
    fn expect_punct(&mut self, c: char) -> Result<(), PtxError> {
        if self.eat_punct(c) {
            Ok(())
        } else {
            self.err(format!("expected `{c}`"))
        }
    }
    fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Some(Tok::Word(x)) if x == w)
    }
    fn eat_word(&mut self, w: &str) -> bool {
        let y = self.is_word(w);
        if y {
            self.i += 1;
        }
        y
    }
    fn word(&mut self) -> Result<String, PtxError> {
        match self.peek() {
            Some(Tok::Word(w)) => {
                let w = w.clone();
                self.i += 1;
                Ok(w)
            }
            _ => self.err("expected a name"),
        }
    }
    fn int(&mut self) -> Result<u64, PtxError> {
        match self.peek() {
            Some(Tok::Int(v)) => {
                let v = *v;
                self.i += 1;
                Ok(v)
            }
            _ => self.err("expected an integer"),
        }
    }
    fn ty(&mut self) -> Result<Ty, PtxError> {
        match self.peek() {
            Some(Tok::Word(w)) if w.starts_with('.') => match Ty::from_suffix(&w[1..]) {
                Some(t) => {
                    self.i += 1;
                    Ok(t)
                }
                None => self.err(format!("expected a type, found `{w}`")),
            },
            _ => self.err("expected a type"),
        }
    }
    fn skip_to_semicolon(&mut self) -> Result<(), PtxError> {
        while let Some(t) = self.next() {
            if t == Tok::Punct(';') {
                return Ok(());
            }
        }
        self.err("expected `;`")
    }

    fn module(&mut self) -> Result<Module, PtxError> {
        let mut m = Module {
            address_size: 32,
            ..Module::default()
        };
        while self.i < self.t.len() {
            let line = self.pos().0;
            let w = self.word()?;
            match w.as_str() {
                ".version" => {
                    m.version = match self.next() {
                        Some(Tok::Float(s)) => s,
                        Some(Tok::Int(v)) => v.to_string(),
                        _ => return self.err("expected the version number"),
                    }
                }
                ".target" => loop {
                    m.target.push(self.word()?);
                    if !self.eat_punct(',') {
                        break;
                    }
                },
                ".address_size" => m.address_size = u32::try_from(self.int()?).unwrap_or(0),
                ".file" => {
                    self.int()?;
                    match self.next() {
                        Some(Tok::Str(_)) => {}
                        _ => return self.err("expected a file name"),
                    }
                    while self.eat_punct(',') {
                        self.int()?;
                    }
                }
                // Debug information (DWARF sections of `-G`/`debug=True` builds): not code, so
                // it is skipped, as a loader without a debugger does.
                ".section" => {
                    self.word()?;
                    self.expect_punct('{')?;
                    let mut depth = 1u32;
                    while depth > 0 {
                        match self.next() {
                            Some(Tok::Punct('{')) => depth += 1,
                            Some(Tok::Punct('}')) => depth -= 1,
                            Some(_) => {}
                            None => return self.err("`.section` without its closing `}`"),
                        }
                    }
                }
                _ => {
                    self.i -= 1;
                    self.top_level(&mut m, line)?;
                }
            }
        }
        if m.version.is_empty() {
            return Err(PtxError::Syntax {
                line: 1,
                column: 1,
                message: "missing `.version`".into(),
            });
        }
        Ok(m)
    }

    fn top_level(&mut self, m: &mut Module, line: u32) -> Result<(), PtxError> {
        let mut external = false;
        let mut linkage = Linkage::Internal;
        loop {
            if self.eat_word(".visible") {
                linkage = Linkage::Visible;
                continue;
            }
            if self.eat_word(".weak") || self.eat_word(".common") {
                linkage = Linkage::Weak;
                continue;
            }
            if self.eat_word(".extern") {
                external = true;
                linkage = Linkage::Extern;
                continue;
            }
            break;
        }
        if self.eat_word(".entry") {
            let mut f = self.function(true, line)?;
            f.linkage = linkage;
            m.functions.push(f);
        } else if self.eat_word(".func") {
            let mut f = self.function(false, line)?;
            f.linkage = linkage;
            m.functions.push(f);
        } else if let Some(space) = self.space() {
            let mut v = self.var(space, external, line)?;
            v.linkage = linkage;
            m.vars.push(v);
        } else if self.is_word(".tex") {
            self.refuse_texref()?;
        } else {
            let shown = match self.peek() {
                Some(Tok::Word(w)) => w.clone(),
                Some(t) => format!("{t:?}"),
                None => String::new(),
            };
            return self.err(format!("unexpected `{shown}` at module scope"));
        }
        Ok(())
    }

    fn space(&mut self) -> Option<Space> {
        let s = match self.peek() {
            Some(Tok::Word(w)) => match w.as_str() {
                ".global" => Space::Global,
                ".shared" => Space::Shared,
                ".const" => Space::Const,
                ".local" => Space::Local,
                ".param" => Space::Param,
                _ => return None,
            },
            _ => return None,
        };
        self.i += 1;
        Some(s)
    }

    /// After the state space: `[.align N] .type name[dims] [= init];`
    fn var(&mut self, space: Space, external: bool, line: u32) -> Result<VarDecl, PtxError> {
        self.refuse_texref()?;
        let mut align = None;
        if self.eat_word(".align") {
            align = Some(u32::try_from(self.int()?).unwrap_or(u32::MAX));
        }
        if self.eat_word(".v2") || self.eat_word(".v4") {
            return self.err("vector-typed variables are not supported");
        }
        let ty = self.ty()?;
        if align.is_none() && self.eat_word(".align") {
            align = Some(u32::try_from(self.int()?).unwrap_or(u32::MAX));
        }
        let name = self.word()?;
        let mut array: Option<Option<u64>> = None;
        while self.eat_punct('[') {
            if self.eat_punct(']') {
                array = Some(None);
                continue;
            }
            let n = self.int()?;
            self.expect_punct(']')?;
            array = Some(Some(match array {
                Some(Some(prev)) => prev.saturating_mul(n),
                _ => n,
            }));
        }
        let mut init = None;
        if self.eat_punct('=') {
            let mut vals = Vec::new();
            self.init_values(&mut vals, 0)?;
            init = Some(vals);
        }
        self.expect_punct(';')?;
        Ok(VarDecl {
            space,
            external,
            linkage: Linkage::Internal,
            align,
            ty,
            name,
            array,
            init,
            line,
        })
    }

    /// Texture, sampler and surface references (`.texref`, `.samplerref`, `.surfref`, the old
    /// `.tex` space): refused with their line. Only the objects (a 64-bit handle in a register)
    /// are translated; a reference is bound by the host through the module, which HIP's
    /// hipRTC code cannot express.
    fn refuse_texref(&mut self) -> Result<(), PtxError> {
        match self.peek() {
            Some(Tok::Word(w))
                if matches!(w.as_str(), ".texref" | ".samplerref" | ".surfref" | ".tex") =>
            {
                let (line, _) = self.pos();
                Err(PtxError::Unsupported {
                    instruction: w.clone(),
                    line,
                    reason: "texture, sampler and surface references are not translated; \
                             texture and surface objects (cudaTextureObject_t, \
                             cudaSurfaceObject_t) are"
                        .into(),
                })
            }
            _ => Ok(()),
        }
    }

    fn init_values(&mut self, out: &mut Vec<Operand>, depth: u32) -> Result<(), PtxError> {
        if depth > MAX_DEPTH {
            return self.err("initializer nested too deep");
        }
        if self.eat_punct('{') {
            loop {
                self.init_values(out, depth + 1)?;
                if !self.eat_punct(',') {
                    break;
                }
            }
            return self.expect_punct('}');
        }
        out.push(self.scalar()?);
        Ok(())
    }

    fn params(&mut self) -> Result<Vec<Param>, PtxError> {
        let mut v = Vec::new();
        self.expect_punct('(')?;
        if self.eat_punct(')') {
            return Ok(v);
        }
        loop {
            if !self.eat_word(".param") && !self.eat_word(".reg") {
                return self.err("expected `.param`");
            }
            let mut align = None;
            let mut ty = None;
            loop {
                self.refuse_texref()?;
                if self.eat_word(".align") {
                    align = Some(u32::try_from(self.int()?).unwrap_or(u32::MAX));
                } else if self.eat_word(".ptr")
                    || self.eat_word(".global")
                    || self.eat_word(".shared")
                    || self.eat_word(".const")
                    || self.eat_word(".local")
                {
                } else if ty.is_none()
                    && matches!(self.peek(), Some(Tok::Word(w)) if w.starts_with('.'))
                {
                    ty = Some(self.ty()?);
                } else {
                    break;
                }
            }
            let Some(ty) = ty else {
                return self.err("expected the parameter's type");
            };
            let name = self.word()?;
            let mut array = None;
            if self.eat_punct('[') {
                array = Some(self.int()?);
                self.expect_punct(']')?;
            }
            v.push(Param {
                name,
                ty,
                align,
                array,
            });
            if self.eat_punct(')') {
                return Ok(v);
            }
            self.expect_punct(',')?;
        }
    }

    fn function(&mut self, entry: bool, line: u32) -> Result<Function, PtxError> {
        let mut rets = Vec::new();
        if !entry && self.is_punct('(') {
            rets = self.params()?;
        }
        let name = self.word()?;
        let params = if self.is_punct('(') {
            self.params()?
        } else {
            Vec::new()
        };
        let mut max_threads = None;
        loop {
            match self.peek() {
                Some(Tok::Word(w)) if w == ".maxntid" || w == ".reqntid" => {
                    self.i += 1;
                    let mut n = self.int()?;
                    while self.eat_punct(',') {
                        n = n.saturating_mul(self.int()?);
                    }
                    max_threads = Some(n);
                }
                Some(Tok::Word(w))
                    if w == ".minnctapersm" || w == ".maxnreg" || w == ".maxnctapersm" =>
                {
                    self.i += 1;
                    self.int()?;
                }
                // An upper bound on the cluster a kernel may be launched in: AMD has no thread
                // block clusters, every launch is a cluster of one, within any bound.
                Some(Tok::Word(w)) if w == ".maxclusterrank" => {
                    self.i += 1;
                    self.int()?;
                }
                Some(Tok::Word(w)) if w == ".reqnctapercluster" || w == ".explicitcluster" => {
                    let (line, _) = self.pos();
                    return Err(PtxError::Unsupported {
                        instruction: w.clone(),
                        line,
                        reason: "the kernel needs thread block clusters, which AMD GPUs do not \
                                 have"
                            .into(),
                    });
                }
                Some(Tok::Word(w)) if w == ".noreturn" => self.i += 1,
                Some(Tok::Word(w)) if w == ".pragma" => {
                    self.i += 1;
                    self.skip_to_semicolon()?;
                }
                Some(Tok::Word(w)) if w.starts_with('.') => {
                    let w = w.clone();
                    return self.err(format!("the function directive `{w}` is not supported"));
                }
                _ => break,
            }
        }
        if self.eat_punct(';') {
            return Ok(Function {
                entry,
                linkage: Linkage::Internal,
                name,
                rets,
                params,
                max_threads,
                body: None,
                line,
            });
        }
        self.expect_punct('{')?;
        let body = self.block(0)?;
        Ok(Function {
            entry,
            linkage: Linkage::Internal,
            name,
            rets,
            params,
            max_threads,
            body: Some(body),
            line,
        })
    }

    /// Statements up to the closing `}` (consumed).
    fn block(&mut self, depth: u32) -> Result<Vec<Stmt>, PtxError> {
        if depth > MAX_DEPTH {
            return self.err("blocks nested too deep");
        }
        let mut out = Vec::new();
        loop {
            let (line, col) = self.pos();
            match self.peek() {
                None => return self.err("expected `}`"),
                Some(Tok::Punct('}')) => {
                    self.i += 1;
                    return Ok(out);
                }
                Some(Tok::Punct('{')) => {
                    self.i += 1;
                    out.push(Stmt::Block(self.block(depth + 1)?));
                }
                Some(Tok::Punct('@')) => {
                    self.i += 1;
                    let neg = self.eat_punct('!');
                    let p = self.word()?;
                    let (line, col) = self.pos();
                    let opcode = self.word()?;
                    out.push(Stmt::Inst(self.inst(Some((neg, p)), opcode, line, col)?));
                }
                Some(Tok::Word(w)) => {
                    let w = w.clone();
                    self.i += 1;
                    if self.is_punct(':') && !w.starts_with('.') {
                        self.i += 1;
                        out.push(Stmt::Label(w));
                        continue;
                    }
                    match w.as_str() {
                        ".reg" => out.push(self.reg_decl(None)?),
                        // `.reg.b32 f;`, as inline assembly in CUDA's own headers writes it
                        // (cuda_fp16's hexp): the type glued to the directive.
                        _ if w.starts_with(".reg.") => match Ty::from_suffix(&w[5..]) {
                            Some(t) => out.push(self.reg_decl(Some(t))?),
                            None => {
                                return Err(PtxError::Syntax {
                                    line,
                                    column: col,
                                    message: format!("expected a register type, found `{w}`"),
                                })
                            }
                        },
                        ".local" | ".shared" | ".param" | ".const" | ".global" => {
                            self.i -= 1;
                            let space = self.space().unwrap_or(Space::Local);
                            out.push(Stmt::Var(self.var(space, false, line)?));
                        }
                        ".pragma" => self.skip_to_semicolon()?,
                        ".loc" => {
                            // .loc file line col [, function_name label+off, inlined_at a b c]
                            self.int()?;
                            self.int()?;
                            self.int()?;
                            while self.eat_punct(',') {
                                self.word()?;
                                while matches!(
                                    self.peek(),
                                    Some(Tok::Int(_)) | Some(Tok::Punct('+'))
                                ) || matches!(self.peek(), Some(Tok::Word(w)) if !w.starts_with('.') && !w.contains('.'))
                                {
                                    self.i += 1;
                                }
                            }
                        }
                        _ if w.starts_with('.') => {
                            return Err(PtxError::Syntax {
                                line,
                                column: col,
                                message: format!("unexpected directive `{w}` in a body"),
                            })
                        }
                        _ => out.push(Stmt::Inst(self.inst(None, w, line, col)?)),
                    }
                }
                Some(_) => return self.err("expected an instruction"),
            }
        }
    }

    /// `.reg` with its type (`ty`, when the directive carried it: `.reg.b32`) and names.
    fn reg_decl(&mut self, ty: Option<Ty>) -> Result<Stmt, PtxError> {
        if self.is_word(".v2") || self.is_word(".v4") {
            return self.err("vector registers are not supported");
        }
        let line = self.pos().0;
        let ty = match ty {
            Some(t) => t,
            None => self.ty()?,
        };
        if ty == Ty::B128 {
            return Err(PtxError::Unsupported {
                instruction: ".reg .b128".into(),
                line,
                reason: "128-bit registers are not translated yet".into(),
            });
        }
        let mut names = Vec::new();
        loop {
            let n = self.word()?;
            if self.eat_punct('<') {
                let count = self.int()?;
                self.expect_punct('>')?;
                if count > MAX_REGS || names.len() as u64 + count > MAX_REGS {
                    return self.err(format!("register range of {count} is too large"));
                }
                for k in 0..count {
                    names.push(format!("{n}{k}"));
                }
            } else {
                names.push(n);
            }
            if !self.eat_punct(',') {
                break;
            }
        }
        self.expect_punct(';')?;
        Ok(Stmt::Reg(ty, names))
    }

    fn inst(
        &mut self,
        guard: Option<(bool, String)>,
        opcode: String,
        line: u32,
        col: u32,
    ) -> Result<Inst, PtxError> {
        if opcode.starts_with('.') || opcode.starts_with('%') {
            return Err(PtxError::Syntax {
                line,
                column: col,
                message: format!("expected an opcode, found `{opcode}`"),
            });
        }
        let mut operands = Vec::new();
        if !self.eat_punct(';') {
            loop {
                operands.push(self.operand()?);
                if self.eat_punct(';') {
                    break;
                }
                self.expect_punct(',')?;
            }
        }
        Ok(Inst {
            guard,
            opcode,
            operands,
            line,
            col,
        })
    }

    fn scalar(&mut self) -> Result<Operand, PtxError> {
        let neg = self.eat_punct('-');
        let o = match self.next() {
            Some(Tok::Int(v)) => Operand::Int(if neg { -i128::from(v) } else { i128::from(v) }),
            Some(Tok::FloatBits { bits, double }) if !neg => Operand::FloatBits { bits, double },
            Some(Tok::Float(s)) => Operand::Float(if neg { format!("-{s}") } else { s }),
            Some(Tok::Word(w)) if !neg && !w.starts_with('.') => Operand::Name(w),
            _ => {
                self.i = self.i.saturating_sub(1);
                return self.err("expected an operand");
            }
        };
        Ok(o)
    }

    fn operand(&mut self) -> Result<Operand, PtxError> {
        if self.eat_punct('[') {
            let mut base = None;
            let mut offset: i64 = 0;
            match self.peek() {
                Some(Tok::Word(_)) => {
                    let b = self.word()?;
                    if self.eat_punct(',') {
                        return self.tex_operand(b);
                    }
                    base = Some(b);
                    if self.eat_punct('+') {
                        let neg = self.eat_punct('-');
                        let v = i64::try_from(self.int()?)
                            .map_err(|_| ())
                            .or_else(|()| self.err("offset too large"))?;
                        offset = if neg { -v } else { v };
                    } else if self.eat_punct('-') {
                        let v = i64::try_from(self.int()?)
                            .map_err(|_| ())
                            .or_else(|()| self.err("offset too large"))?;
                        offset = -v;
                    }
                }
                Some(Tok::Int(_)) => {
                    offset = i64::try_from(self.int()?)
                        .map_err(|_| ())
                        .or_else(|()| self.err("address too large"))?;
                }
                _ => return self.err("expected an address"),
            }
            self.expect_punct(']')?;
            return Ok(Operand::Addr { base, offset });
        }
        if self.eat_punct('{') {
            let mut v = Vec::new();
            loop {
                v.push(self.scalar_or_sink()?);
                if self.eat_punct('}') {
                    break;
                }
                self.expect_punct(',')?;
            }
            return Ok(Operand::Vector(v));
        }
        if self.eat_punct('(') {
            let mut v = Vec::new();
            if self.eat_punct(')') {
                return Ok(Operand::List(v));
            }
            loop {
                v.push(self.scalar_or_sink()?);
                if self.eat_punct(')') {
                    break;
                }
                self.expect_punct(',')?;
            }
            return Ok(Operand::List(v));
        }
        if self.eat_punct('!') {
            return Ok(Operand::Not(self.word()?));
        }
        let o = self.scalar_or_sink()?;
        if let Operand::Name(a) = &o {
            if self.eat_punct('|') {
                return Ok(Operand::Pair(a.clone(), self.word()?));
            }
        }
        Ok(o)
    }

    /// After `[a,`: the rest of a texture or surface operand, `c]` or `b, c]`, each part a
    /// scalar or a `{...}` vector.
    fn tex_operand(&mut self, handle: String) -> Result<Operand, PtxError> {
        let mut parts = Vec::new();
        loop {
            if parts.len() == 2 {
                return self.err("a texture operand has at most a sampler and coordinates");
            }
            if self.eat_punct('{') {
                let mut v = Vec::new();
                loop {
                    v.push(self.scalar_or_sink()?);
                    if self.eat_punct('}') {
                        break;
                    }
                    self.expect_punct(',')?;
                }
                parts.push(Operand::Vector(v));
            } else {
                parts.push(self.scalar()?);
            }
            if self.eat_punct(']') {
                break;
            }
            self.expect_punct(',')?;
        }
        let coords = match parts.pop() {
            Some(Operand::Vector(v)) => v,
            Some(c) => vec![c],
            None => return self.err("expected the coordinates"),
        };
        let sampler = match parts.pop() {
            None => None,
            Some(Operand::Name(n)) => Some(n),
            Some(_) => return self.err("expected a sampler name"),
        };
        Ok(Operand::Tex {
            handle,
            sampler,
            coords,
        })
    }

    fn scalar_or_sink(&mut self) -> Result<Operand, PtxError> {
        if self.eat_word("_") {
            return Ok(Operand::Sink);
        }
        self.scalar()
    }
}

//! The PTX syntax tree: what [`parse`](super::parse) returns and the emitter reads.

/// A PTX scalar type (`.u32`, `.f64`, `.pred`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Ty {
    Pred,
    B8,
    B16,
    B32,
    B64,
    B128,
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
    F16,
    F16x2,
    Bf16,
    Bf16x2,
    F32,
    F64,
}

impl Ty {
    /// The type a `.name` spells, if it is one.
    pub fn from_suffix(s: &str) -> Option<Ty> {
        Some(match s {
            "pred" => Ty::Pred,
            "b8" => Ty::B8,
            "b16" => Ty::B16,
            "b32" => Ty::B32,
            "b64" => Ty::B64,
            "b128" => Ty::B128,
            "u8" => Ty::U8,
            "u16" => Ty::U16,
            "u32" => Ty::U32,
            "u64" => Ty::U64,
            "s8" => Ty::S8,
            "s16" => Ty::S16,
            "s32" => Ty::S32,
            "s64" => Ty::S64,
            "f16" => Ty::F16,
            "f16x2" => Ty::F16x2,
            "bf16" => Ty::Bf16,
            "bf16x2" => Ty::Bf16x2,
            "f32" => Ty::F32,
            "f64" => Ty::F64,
            _ => return None,
        })
    }

    /// Size in bytes (`.pred`: 1).
    pub fn size(self) -> u32 {
        match self {
            Ty::Pred | Ty::B8 | Ty::U8 | Ty::S8 => 1,
            Ty::B16 | Ty::U16 | Ty::S16 | Ty::F16 | Ty::Bf16 => 2,
            Ty::B32 | Ty::U32 | Ty::S32 | Ty::F32 | Ty::F16x2 | Ty::Bf16x2 => 4,
            Ty::B64 | Ty::U64 | Ty::S64 | Ty::F64 => 8,
            Ty::B128 => 16,
        }
    }

    /// Whether it is a signed integer type.
    pub fn signed(self) -> bool {
        matches!(self, Ty::S8 | Ty::S16 | Ty::S32 | Ty::S64)
    }

    /// Whether it is `.f32` or `.f64`.
    pub fn float(self) -> bool {
        matches!(self, Ty::F32 | Ty::F64)
    }
}

/// A state space.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Space {
    Global,
    Shared,
    Const,
    Local,
    Param,
}

/// A module-scope name's linkage: how [`translate_all`](super::translate_all) links it across
/// modules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Linkage {
    /// No linkage directive: the module's own (and every name inside a body).
    #[default]
    Internal,
    /// `.visible`: defined here, seen by every module.
    Visible,
    /// `.extern`: declared here, defined by another module (or, for `.shared`, the dynamic
    /// shared memory).
    Extern,
    /// `.weak` (and `.common`): seen by every module; the first definition wins.
    Weak,
}

/// A variable declared in a state space (module scope or inside a body).
#[derive(Debug, Clone, PartialEq)]
pub struct VarDecl {
    /// Its state space.
    pub space: Space,
    /// `.extern` (a `.shared` array sized at launch, or a variable another module defines).
    pub external: bool,
    /// Its linkage (module scope; [`Linkage::Internal`] inside a body).
    pub linkage: Linkage,
    /// `.align N`.
    pub align: Option<u32>,
    /// Its element type.
    pub ty: Ty,
    /// Its name.
    pub name: String,
    /// `None`: a scalar; `Some(None)`: `[]`; `Some(Some(n))`: `[n]` (dimensions multiplied).
    pub array: Option<Option<u64>>,
    /// Its initializer, flattened.
    pub init: Option<Vec<Operand>>,
    /// Line of the declaration.
    pub line: u32,
}

/// A `.param` of an `.entry` or `.func` (or a return value of a `.func`).
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    /// Its name.
    pub name: String,
    /// Its element type.
    pub ty: Ty,
    /// `.align N`.
    pub align: Option<u32>,
    /// Element count of an array parameter (`.b8 p[16]`).
    pub array: Option<u64>,
}

impl Param {
    /// Size in bytes.
    pub fn size(&self) -> u64 {
        u64::from(self.ty.size()).saturating_mul(self.array.unwrap_or(1))
    }
}

/// An `.entry` (kernel) or `.func` (device function).
#[derive(Debug, Clone, PartialEq)]
pub struct Function {
    /// `.entry` rather than `.func`.
    pub entry: bool,
    /// Its linkage (`.visible`, `.extern`, `.weak`, or none).
    pub linkage: Linkage,
    /// Its name.
    pub name: String,
    /// Return values (`.func` only).
    pub rets: Vec<Param>,
    /// Parameters.
    pub params: Vec<Param>,
    /// `.maxntid` / `.reqntid`: the most threads per block.
    pub max_threads: Option<u64>,
    /// The body; `None` for a declaration (`.extern .func f(...);`).
    pub body: Option<Vec<Stmt>>,
    /// Line of the declaration.
    pub line: u32,
}

/// A statement of a body.
#[derive(Debug, Clone, PartialEq)]
pub enum Stmt {
    /// `.reg .t names;` (ranges `%r<4>` expanded to `%r0`..`%r3`).
    Reg(Ty, Vec<String>),
    /// A `.local`, `.shared` or `.param` variable declared inside the body.
    Var(VarDecl),
    /// `name:`
    Label(String),
    /// An instruction.
    Inst(Inst),
    /// `{ ... }`, a nested scope.
    Block(Vec<Stmt>),
}

/// One instruction.
#[derive(Debug, Clone, PartialEq)]
pub struct Inst {
    /// `@p` / `@!p`: the predicate register and whether it is negated.
    pub guard: Option<(bool, String)>,
    /// The opcode with its modifiers, as written (`ld.global.nc.v2.f32`).
    pub opcode: String,
    /// The operands.
    pub operands: Vec<Operand>,
    /// Line and column of the opcode.
    pub line: u32,
    /// Column of the opcode.
    pub col: u32,
}

/// An operand.
#[derive(Debug, Clone, PartialEq)]
pub enum Operand {
    /// A register, special register, symbol or label.
    Name(String),
    /// `!%p` (a negated predicate source).
    Not(String),
    /// An integer literal (negative values as their two's complement bits).
    Int(i128),
    /// A float literal's bits.
    FloatBits {
        /// Its bits.
        bits: u64,
        /// `0d` (f64) rather than `0f` (f32).
        double: bool,
    },
    /// A decimal float literal, as written.
    Float(String),
    /// `[base+offset]`; `base` `None` for an absolute address.
    Addr {
        /// The register or symbol.
        base: Option<String>,
        /// The byte offset.
        offset: i64,
    },
    /// `{a, b, ...}`.
    Vector(Vec<Operand>),
    /// `[a, c]` or `[a, b, c]`: a texture or surface access (`tex`, `tld4`, `suld`, `sust`):
    /// the texture or surface, the sampler of independent mode, the coordinates.
    Tex {
        /// The texture or surface: a register holding its object, or a `.texref` name.
        handle: String,
        /// The explicit sampler (`[a, b, c]`), if written.
        sampler: Option<String>,
        /// The coordinates, in the order written (`{x, y}`; a layer index first for arrays).
        coords: Vec<Operand>,
    },
    /// `(a, b, ...)` (a call's arguments or return values).
    List(Vec<Operand>),
    /// `p|q`: setp's two destinations.
    Pair(String, String),
    /// `_`: a sink.
    Sink,
}

/// A parsed PTX module.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Module {
    /// `.version`, as written (`8.5`).
    pub version: String,
    /// `.target` names (`sm_90`, ...).
    pub target: Vec<String>,
    /// `.address_size` (64 when absent... as PTX says: 32 when absent).
    pub address_size: u32,
    /// Module-scope variables.
    pub vars: Vec<VarDecl>,
    /// Functions and kernels, in order.
    pub functions: Vec<Function>,
}

//! The conformance suite's generator: hand-shaped PTX, one kernel per instruction form, written
//! directly (not through NVRTC) so that every form appears exactly as listed here.
//!
//! Every kernel has the same signature, `(u64 a, u64 b, u64 c, u64 out, u32 n)`: thread `i`
//! reads the bit patterns `a[i]`, `b[i]`, `c[i]` (8 bytes each, whatever the operand type),
//! moves them into registers of the form's operand types, runs the form once, and writes the
//! result's bits, zero-extended, to `out[i]`. One host harness thus drives every form; the
//! inputs are edge values of each operand class crossed with each other, then pseudo-random
//! values from a fixed seed (`inputs`).

use std::fmt::Write as _;

/// What an operand slot holds: decides the register it lives in and the values it is fed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// A 16-bit integer (`.b16` register; also the 8-bit types, which PTX keeps there).
    I16,
    /// A 32-bit integer.
    I32,
    /// A 64-bit integer.
    I64,
    /// A shift count, bit position or field length (a 32-bit register, values around the
    /// widths: 0, 7, 8, 15, 16, 31, 32, 33, 63, 64, 65, 255, ...).
    Shift,
    /// An f16's bits in a `.b16` register.
    F16,
    /// A bf16's bits in a `.b16` register.
    Bf16,
    /// Two f16s packed in a `.b32` register.
    F16x2,
    /// Two bf16s packed in a `.b32` register.
    Bf16x2,
    /// An f32 in an `.f32` register.
    F32,
    /// An f64 in an `.f64` register.
    F64,
    /// A predicate (the input's low bit).
    Pred,
}

/// The register file a slot lives in (its `.reg` declaration).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reg {
    /// `.b16`, `%h`
    B16,
    /// `.b32`, `%r`
    B32,
    /// `.b64`, `%rd`
    B64,
    /// `.f32`, `%f`
    F32,
    /// `.f64`, `%fd`
    F64,
    /// `.pred`, `%p`
    Pred,
}

impl Class {
    /// The register file of this class.
    pub fn reg(self) -> Reg {
        match self {
            Class::I16 | Class::F16 | Class::Bf16 => Reg::B16,
            Class::I32 | Class::Shift | Class::F16x2 | Class::Bf16x2 => Reg::B32,
            Class::I64 => Reg::B64,
            Class::F32 => Reg::F32,
            Class::F64 => Reg::F64,
            Class::Pred => Reg::Pred,
        }
    }
}

impl Reg {
    /// The register of slot `k` (1..3 the inputs a, b, c; 4 the result; 5..9 temporaries).
    pub fn name(self, k: usize) -> String {
        let p = match self {
            Reg::B16 => "%h",
            Reg::B32 => "%r",
            Reg::B64 => "%rd",
            Reg::F32 => "%f",
            Reg::F64 => "%fd",
            Reg::Pred => "%p",
        };
        format!("{p}{k}")
    }
}

/// How the translated result must compare with NVIDIA's.
#[derive(Clone, Copy, Debug)]
pub enum Check {
    /// Bit for bit.
    Exact,
    /// An `.approx` f32 form: within `ulp` units in the last place, or `abs` absolutely,
    /// where the PTX ISA's bound applies (`applies(a, b)`, on the input bits); NaN for NaN,
    /// and infinities and zeros are exact.
    ApproxF32 {
        /// The ulp bound (0: none).
        ulp: u32,
        /// The absolute bound (0.0: none).
        abs: f64,
        /// Whether the inputs are in the range the bound is stated for.
        applies: fn(u64, u64) -> bool,
    },
    /// An f64 result of the hardware's arithmetic: bit for bit, but a NaN result matches any
    /// NaN. NVIDIA has no canonical f64 NaN (which operand's payload a NaN result carries is
    /// the unit's choice: an H200's `add.f64` of two NaNs gives the second), AMD's f64 unit
    /// chooses otherwise, and the translation leaves f64 NaN results to the device
    /// (docs/ptx-on-amd.md, "What translates").
    ExactNanF64,
    /// An `.approx` f64 form: within a relative error `rel` (NaN for NaN, infinities and
    /// zeros exact).
    ApproxF64 {
        /// The relative bound.
        rel: f64,
    },
}

/// One instruction form and its kernel body.
pub struct Form {
    /// The form as PTX writes it (`add.rn.ftz.sat.f32`), unique in the suite.
    pub name: String,
    /// The entry's name in its module.
    pub entry: String,
    /// The PTX, with `{a}`, `{b}`, `{c}` (inputs) and `{d}` (the result) for the registers.
    pub body: String,
    /// The input classes, a, b, c in order (at most three).
    pub ins: Vec<Class>,
    /// The result's register file.
    pub out: Reg,
    /// The comparison.
    pub check: Check,
}

/// A module of the suite: a group of forms compiled together.
pub struct Module {
    /// Its name (`int`, `f32`, ...).
    pub name: &'static str,
    /// Its forms, one entry each.
    pub forms: Vec<Form>,
}

/// A form the translator refuses on purpose, with the reason (the suite checks that it is
/// still refused, so a form that starts translating must move into the suite).
pub struct Refused {
    /// The form.
    pub form: Form,
    /// Why it is refused.
    pub why: &'static str,
}

struct Builder {
    forms: Vec<Form>,
}

impl Builder {
    fn add(&mut self, name: &str, body: &str, ins: &[Class], out: Reg, check: Check) {
        let entry = format!(
            "f{}_{}",
            self.forms.len(),
            name.replace(|c: char| !c.is_ascii_alphanumeric(), "_")
        );
        self.forms.push(Form {
            name: name.to_owned(),
            entry,
            body: body.to_owned(),
            ins: ins.to_vec(),
            out,
            check,
        });
    }
    /// `op d, a[, b[, c]];` with the operand classes given.
    fn op(&mut self, name: &str, ins: &[Class], out: Reg) {
        self.op_check(name, ins, out, Check::Exact);
    }
    fn op_check(&mut self, name: &str, ins: &[Class], out: Reg, check: Check) {
        let ops: Vec<&str> = ["{a}", "{b}", "{c}"][..ins.len()].to_vec();
        let body = format!("{name} {{d}}, {};", ops.join(", "));
        self.add(name, &body, ins, out, check);
    }
}

/// The integer type suffixes with their class and register.
fn int_class(t: &str) -> Class {
    match &t[1..] {
        "8" | "16" => Class::I16,
        "32" => Class::I32,
        _ => Class::I64,
    }
}

const ROUND: [&str; 4] = ["rn", "rz", "rm", "rp"];
const IROUND: [&str; 4] = ["rni", "rzi", "rmi", "rpi"];
const INTS: [&str; 8] = ["s8", "u8", "s16", "u16", "s32", "u32", "s64", "u64"];
const FCMP: [&str; 14] = [
    "eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan",
];

fn int_module() -> Module {
    let mut b = Builder { forms: Vec::new() };
    for t in ["s16", "u16", "s32", "u32", "s64", "u64"] {
        let c = int_class(t);
        let r = c.reg();
        for op in ["add", "sub", "mul.lo", "mul.hi", "div", "rem", "min", "max"] {
            b.op(&format!("{op}.{t}"), &[c, c], r);
        }
        for op in ["mad.lo", "mad.hi"] {
            b.op(&format!("{op}.{t}"), &[c, c, c], r);
        }
        if t.ends_with("16") || t.ends_with("32") {
            let wide = if t.ends_with("16") {
                Class::I32
            } else {
                Class::I64
            };
            b.op(&format!("mul.wide.{t}"), &[c, c], wide.reg());
            b.op(&format!("mad.wide.{t}"), &[c, c, wide], wide.reg());
        }
        if t.starts_with('s') {
            b.op(&format!("abs.{t}"), &[c], r);
            b.op(&format!("neg.{t}"), &[c], r);
        }
    }
    b.op("add.sat.s32", &[Class::I32, Class::I32], Reg::B32);
    b.op("sub.sat.s32", &[Class::I32, Class::I32], Reg::B32);
    for t in ["s32", "u32"] {
        for h in ["lo", "hi"] {
            b.op(
                &format!("mul24.{h}.{t}"),
                &[Class::I32, Class::I32],
                Reg::B32,
            );
            let c3 = [Class::I32, Class::I32, Class::I32];
            b.op(&format!("mad24.{h}.{t}"), &c3, Reg::B32);
        }
    }
    // Carry chains: the carry of the first instruction feeds the second (and a third takes
    // the last carry out as a value).
    let (i32c, i64c) = (Class::I32, Class::I64);
    b.add(
        "add.cc.u32 + addc.cc.u32 + addc.u32",
        "add.cc.u32 %r5, {a}, {b};\n\taddc.cc.u32 %r6, {c}, {b};\n\taddc.u32 %r7, 0, 0;\n\tmov.b64 {d}, {%r5, %r6};\n\tcvt.u64.u32 %rd5, %r7;\n\tshl.b64 %rd5, %rd5, 63;\n\txor.b64 {d}, {d}, %rd5;",
        &[i32c, i32c, i32c],
        Reg::B64,
        Check::Exact,
    );
    b.add(
        "sub.cc.u32 + subc.cc.u32 + subc.u32",
        "sub.cc.u32 %r5, {a}, {b};\n\tsubc.cc.u32 %r6, {c}, {b};\n\tsubc.u32 %r7, 0, 0;\n\tmov.b64 {d}, {%r5, %r6};\n\tcvt.u64.u32 %rd5, %r7;\n\tshl.b64 %rd5, %rd5, 63;\n\txor.b64 {d}, {d}, %rd5;",
        &[i32c, i32c, i32c],
        Reg::B64,
        Check::Exact,
    );
    b.add(
        "mad.lo.cc.u32 + madc.hi.cc.u32 + addc.u32",
        "mad.lo.cc.u32 %r5, {a}, {b}, {c};\n\tmadc.hi.cc.u32 %r6, {a}, {b}, {c};\n\taddc.u32 %r7, 0, 0;\n\tmov.b64 {d}, {%r5, %r6};\n\tcvt.u64.u32 %rd5, %r7;\n\tshl.b64 %rd5, %rd5, 63;\n\txor.b64 {d}, {d}, %rd5;",
        &[i32c, i32c, i32c],
        Reg::B64,
        Check::Exact,
    );
    b.add(
        "madc.lo.u32 after add.cc.u32",
        "add.cc.u32 %r5, {a}, {c};\n\tmadc.lo.u32 %r6, {a}, {b}, {c};\n\tmov.b64 {d}, {%r5, %r6};",
        &[i32c, i32c, i32c],
        Reg::B64,
        Check::Exact,
    );
    b.add(
        "add.cc.u64 + addc.u64",
        "add.cc.u64 %rd5, {a}, {b};\n\taddc.u64 %rd6, {c}, {a};\n\tmul.lo.u64 %rd6, %rd6, 3;\n\txor.b64 {d}, %rd5, %rd6;",
        &[i64c, i64c, i64c],
        Reg::B64,
        Check::Exact,
    );
    b.add(
        "sub.cc.u64 + subc.u64",
        "sub.cc.u64 %rd5, {a}, {b};\n\tsubc.u64 %rd6, {c}, {a};\n\tmul.lo.u64 %rd6, %rd6, 3;\n\txor.b64 {d}, %rd5, %rd6;",
        &[i64c, i64c, i64c],
        Reg::B64,
        Check::Exact,
    );
    b.add(
        "mad.lo.cc.u64 + madc.hi.u64",
        "mad.lo.cc.u64 %rd5, {a}, {b}, {c};\n\tmadc.hi.u64 %rd6, {a}, {b}, {c};\n\tmul.lo.u64 %rd6, %rd6, 3;\n\txor.b64 {d}, %rd5, %rd6;",
        &[i64c, i64c, i64c],
        Reg::B64,
        Check::Exact,
    );
    Module {
        name: "int",
        forms: b.forms,
    }
}

fn bits_module() -> Module {
    let mut b = Builder { forms: Vec::new() };
    for (t, c) in [
        ("b16", Class::I16),
        ("b32", Class::I32),
        ("b64", Class::I64),
    ] {
        for op in ["and", "or", "xor"] {
            b.op(&format!("{op}.{t}"), &[c, c], c.reg());
        }
        b.op(&format!("not.{t}"), &[c], c.reg());
        b.op(&format!("cnot.{t}"), &[c], c.reg());
        b.op(&format!("shl.{t}"), &[c, Class::Shift], c.reg());
        b.op(&format!("shr.{t}"), &[c, Class::Shift], c.reg());
    }
    let p = Class::Pred;
    for op in ["and", "or", "xor"] {
        b.op(&format!("{op}.pred"), &[p, p], Reg::Pred);
    }
    b.op("not.pred", &[p], Reg::Pred);
    for (t, c) in [
        ("u16", Class::I16),
        ("s16", Class::I16),
        ("u32", Class::I32),
        ("s32", Class::I32),
        ("u64", Class::I64),
        ("s64", Class::I64),
    ] {
        b.op(&format!("shr.{t}"), &[c, Class::Shift], c.reg());
    }
    for (t, c) in [("b32", Class::I32), ("b64", Class::I64)] {
        b.op(&format!("popc.{t}"), &[c], Reg::B32);
        b.op(&format!("clz.{t}"), &[c], Reg::B32);
        b.op(&format!("brev.{t}"), &[c], c.reg());
        // bfi takes four operands: the position is c, the length c ^ 37 (over c's edges,
        // lengths of 0 to past the width).
        b.add(
            &format!("bfi.{t}"),
            &format!("xor.b32 %r5, {{c}}, 37;\n\tbfi.{t} {{d}}, {{a}}, {{b}}, {{c}}, %r5;"),
            &[c, c, Class::Shift],
            c.reg(),
            Check::Exact,
        );
    }
    for (t, c) in [
        ("u32", Class::I32),
        ("s32", Class::I32),
        ("u64", Class::I64),
        ("s64", Class::I64),
    ] {
        b.op(&format!("bfind.{t}"), &[c], Reg::B32);
        b.op(&format!("bfind.shiftamt.{t}"), &[c], Reg::B32);
        b.op(
            &format!("bfe.{t}"),
            &[c, Class::Shift, Class::Shift],
            c.reg(),
        );
    }
    let i3 = [Class::I32, Class::I32, Class::I32];
    b.op("prmt.b32", &i3, Reg::B32);
    for mode in ["f4e", "b4e", "rc8", "ecl", "ecr", "rc16"] {
        b.op(&format!("prmt.b32.{mode}"), &i3, Reg::B32);
    }
    for lut in [
        0x00u32, 0xff, 0x96, 0xe8, 0xf0, 0xcc, 0xaa, 0x80, 0xfe, 0x1e, 0x6a, 0x01, 0xb4, 0x5c,
    ] {
        b.add(
            &format!("lop3.b32 lut {lut:#04x}"),
            &format!("lop3.b32 {{d}}, {{a}}, {{b}}, {{c}}, {lut};"),
            &i3,
            Reg::B32,
            Check::Exact,
        );
    }
    b.op("copysign.f32", &[Class::F32, Class::F32], Reg::F32);
    b.op("copysign.f64", &[Class::F64, Class::F64], Reg::F64);
    Module {
        name: "bits",
        forms: b.forms,
    }
}

/// Whether an f32 input (bits) is in `[lo, hi]` in magnitude, or zero, infinite or NaN
/// (special values are compared exactly).
fn f32_mag(x: u64, lo: f32, hi: f32) -> bool {
    let v = f32::from_bits(x as u32).abs();
    v == 0.0 || v.is_infinite() || v.is_nan() || (lo..=hi).contains(&v)
}

fn f32_module() -> Module {
    let mut b = Builder { forms: Vec::new() };
    let f = Class::F32;
    for op in ["add", "sub", "mul"] {
        for rnd in ["", ".rn", ".rz", ".rm", ".rp"] {
            for ftz in ["", ".ftz"] {
                for sat in ["", ".sat"] {
                    b.op(&format!("{op}{rnd}{ftz}{sat}.f32"), &[f, f], Reg::F32);
                }
            }
        }
    }
    for rnd in ROUND {
        for ftz in ["", ".ftz"] {
            for sat in ["", ".sat"] {
                b.op(&format!("fma.{rnd}{ftz}{sat}.f32"), &[f, f, f], Reg::F32);
            }
            b.op(&format!("div.{rnd}{ftz}.f32"), &[f, f], Reg::F32);
            b.op(&format!("sqrt.{rnd}{ftz}.f32"), &[f], Reg::F32);
            b.op(&format!("rcp.{rnd}{ftz}.f32"), &[f], Reg::F32);
        }
    }
    b.op("mad.rn.f32", &[f, f, f], Reg::F32);
    for ftz in ["", ".ftz"] {
        for op in ["neg", "abs"] {
            b.op(&format!("{op}{ftz}.f32"), &[f], Reg::F32);
        }
        for op in ["min", "max"] {
            b.op(&format!("{op}{ftz}.f32"), &[f, f], Reg::F32);
            b.op(&format!("{op}{ftz}.NaN.f32"), &[f, f], Reg::F32);
        }
        // The .approx forms, with the PTX ISA's stated maximum error.
        // div.approx.f32: at most 2 ulp for |b| in [2^-126, 2^126] (outside, the quotient
        // may be flushed to zero, so the bound is not stated there).
        let div_range: fn(u64, u64) -> bool =
            |_, y| f32_mag(y, f32::from_bits(0x0080_0000), f32::from_bits(0x7e80_0000));
        b.op_check(
            &format!("div.approx{ftz}.f32"),
            &[f, f],
            Reg::F32,
            Check::ApproxF32 {
                ulp: 2,
                abs: 0.0,
                applies: div_range,
            },
        );
        // div.full.f32: at most 2 ulp over the full range.
        b.op_check(
            &format!("div.full{ftz}.f32"),
            &[f, f],
            Reg::F32,
            Check::ApproxF32 {
                ulp: 2,
                abs: 0.0,
                applies: |_, _| true,
            },
        );
        // rcp.approx.f32: at most 1 ulp over the full range.
        b.op_check(
            &format!("rcp.approx{ftz}.f32"),
            &[f],
            Reg::F32,
            Check::ApproxF32 {
                ulp: 1,
                abs: 0.0,
                applies: |_, _| true,
            },
        );
        // sqrt.approx.f32: relative error at most 2^-23, 2 ulp at worst.
        // rsqrt.approx.f32: relative error at most 2^-22.9, under 3 ulp.
        // ex2.approx.f32: at most 2 ulp over the full range.
        for (op, ulp) in [("sqrt", 2), ("rsqrt", 3), ("ex2", 2)] {
            b.op_check(
                &format!("{op}.approx{ftz}.f32"),
                &[f],
                Reg::F32,
                Check::ApproxF32 {
                    ulp,
                    abs: 0.0,
                    applies: |_, _| true,
                },
            );
        }
        // lg2.approx.f32: absolute error at most 2^-22.6 (the result near 0 has no ulp
        // bound), for normal inputs; NVIDIA's result and the translation's (log2f, within
        // 1 ulp) may then differ by that and 2 ulp more: 4 ulp (an H200 differed by 3 near
        // -0.86, 1.8e-7 absolute).
        b.op_check(
            &format!("lg2.approx{ftz}.f32"),
            &[f],
            Reg::F32,
            Check::ApproxF32 {
                ulp: 4,
                abs: 2f64.powf(-22.6),
                applies: |x, _| f32_mag(x, f32::MIN_POSITIVE, f32::MAX),
            },
        );
        // sin/cos.approx.f32: absolute error at most 2^-20.5 for |a| <= pi. Beyond, NVIDIA's
        // range reduction loses about |a| * 2^-23 (an H200: 1.4e-5 at |a| = 117, 7.3e-6 at 50),
        // so the bound holds only there; the translation (sinf/cosf) is accurate everywhere.
        for op in ["sin", "cos"] {
            b.op_check(
                &format!("{op}.approx{ftz}.f32"),
                &[f],
                Reg::F32,
                Check::ApproxF32 {
                    ulp: 0,
                    abs: 2f64.powf(-20.5),
                    applies: |x, _| f32_mag(x, 0.0, std::f32::consts::PI),
                },
            );
        }
    }
    Module {
        name: "f32",
        forms: b.forms,
    }
}

fn f64_module() -> Module {
    let mut b = Builder { forms: Vec::new() };
    let d = Class::F64;
    // The arithmetic's results: bit for bit, a NaN any NaN (Check::ExactNanF64).
    let nan = Check::ExactNanF64;
    for op in ["add", "sub", "mul"] {
        for rnd in ["", ".rn", ".rz", ".rm", ".rp"] {
            b.op_check(&format!("{op}{rnd}.f64"), &[d, d], Reg::F64, nan);
        }
    }
    for rnd in ROUND {
        b.op_check(&format!("div.{rnd}.f64"), &[d, d], Reg::F64, nan);
        b.op_check(&format!("sqrt.{rnd}.f64"), &[d], Reg::F64, nan);
        b.op_check(&format!("rcp.{rnd}.f64"), &[d], Reg::F64, nan);
    }
    b.op_check("fma.rn.f64", &[d, d, d], Reg::F64, nan);
    b.op_check("mad.rn.f64", &[d, d, d], Reg::F64, nan);
    // neg and abs are bit operations: exact, NaNs included.
    for op in ["neg", "abs"] {
        b.op(&format!("{op}.f64"), &[d], Reg::F64);
    }
    for op in ["min", "max"] {
        b.op_check(&format!("{op}.f64"), &[d, d], Reg::F64, nan);
    }
    // rsqrt.approx.f64 and rcp.approx.ftz.f64: the PTX ISA states no bound in ulps. An H200's
    // results keep about 20 significant bits (their low 32 bits are zero: 0x3ff6a09e00000000
    // for rsqrt(0.5)), while the translation's are full precision, so the two may differ by
    // up to 2^-20 relative.
    for name in [
        "rsqrt.approx.f64",
        "rsqrt.approx.ftz.f64",
        "rcp.approx.ftz.f64",
    ] {
        b.op_check(
            name,
            &[d],
            Reg::F64,
            Check::ApproxF64 {
                rel: 2f64.powi(-20),
            },
        );
    }
    Module {
        name: "f64",
        forms: b.forms,
    }
}

fn cmp_module() -> Module {
    let mut b = Builder { forms: Vec::new() };
    let p = Class::Pred;
    for (t, c) in [
        ("f32", Class::F32),
        ("ftz.f32", Class::F32),
        ("f64", Class::F64),
        ("f16", Class::F16),
        ("bf16", Class::Bf16),
    ] {
        for cmp in FCMP {
            b.op(&format!("setp.{cmp}.{t}"), &[c, c], Reg::Pred);
        }
    }
    for (t, c) in [
        ("s16", Class::I16),
        ("u16", Class::I16),
        ("s32", Class::I32),
        ("u32", Class::I32),
        ("s64", Class::I64),
        ("u64", Class::I64),
    ] {
        for cmp in ["eq", "ne", "lt", "le", "gt", "ge"] {
            b.op(&format!("setp.{cmp}.{t}"), &[c, c], Reg::Pred);
        }
        if t.starts_with('u') {
            for cmp in ["lo", "ls", "hi", "hs"] {
                b.op(&format!("setp.{cmp}.{t}"), &[c, c], Reg::Pred);
            }
        }
    }
    for (t, c) in [
        ("b16", Class::I16),
        ("b32", Class::I32),
        ("b64", Class::I64),
    ] {
        for cmp in ["eq", "ne"] {
            b.op(&format!("setp.{cmp}.{t}"), &[c, c], Reg::Pred);
        }
    }
    // Both destinations, and the combining forms.
    for (name, c) in [("setp.ltu.f32", Class::F32), ("setp.lt.s32", Class::I32)] {
        b.add(
            &format!("{name} p|q"),
            &format!("{name} %p5|%p6, {{a}}, {{b}};\n\tselp.u32 %r5, 1, 0, %p5;\n\tselp.u32 %r6, 2, 0, %p6;\n\tor.b32 {{d}}, %r5, %r6;"),
            &[c, c],
            Reg::B32,
            Check::Exact,
        );
    }
    for (name, c) in [
        ("setp.lt.and.f32", Class::F32),
        ("setp.nan.or.f32", Class::F32),
        ("setp.gtu.xor.f64", Class::F64),
        ("setp.eq.or.s32", Class::I32),
        ("setp.hi.and.u64", Class::I64),
    ] {
        b.add(
            &format!("{name} p|q"),
            &format!("{name} %p5|%p6, {{a}}, {{b}}, {{c}};\n\tselp.u32 %r5, 1, 0, %p5;\n\tselp.u32 %r6, 2, 0, %p6;\n\tor.b32 {{d}}, %r5, %r6;"),
            &[c, c, p],
            Reg::B32,
            Check::Exact,
        );
        b.op(name, &[c, c, p], Reg::Pred);
    }
    // set: setp's comparison written as all ones (1.0 for .f32) or 0.
    for cmp in FCMP {
        b.op(
            &format!("set.{cmp}.u32.f32"),
            &[Class::F32, Class::F32],
            Reg::B32,
        );
    }
    for (name, c, out) in [
        ("set.ltu.f32.f32", Class::F32, Reg::F32),
        ("set.ge.ftz.s32.f32", Class::F32, Reg::B32),
        ("set.neu.u32.f64", Class::F64, Reg::B32),
        ("set.nan.f32.f64", Class::F64, Reg::F32),
        ("set.lt.u32.s32", Class::I32, Reg::B32),
        ("set.hi.s32.u64", Class::I64, Reg::B32),
        ("set.ne.f32.s16", Class::I16, Reg::F32),
    ] {
        b.op(name, &[c, c], out);
    }
    b.op("set.gt.and.u32.f32", &[Class::F32, Class::F32, p], Reg::B32);
    b.op("set.eq.xor.f32.s32", &[Class::I32, Class::I32, p], Reg::F32);
    for (t, c) in [("f32", Class::F32), ("f64", Class::F64)] {
        for op in [
            "finite",
            "infinite",
            "number",
            "notanumber",
            "normal",
            "subnormal",
        ] {
            b.op(&format!("testp.{op}.{t}"), &[c], Reg::Pred);
        }
    }
    for (t, c) in [
        ("b16", Class::I16),
        ("b32", Class::I32),
        ("b64", Class::I64),
        ("f32", Class::F32),
        ("f64", Class::F64),
    ] {
        b.op(&format!("selp.{t}"), &[c, c, p], c.reg());
    }
    for (t, c) in [
        ("s32", Class::I32),
        ("u64", Class::I64),
        ("f32", Class::F32),
        ("f64", Class::F64),
    ] {
        b.op(&format!("slct.{t}.s32"), &[c, c, Class::I32], c.reg());
        b.op(&format!("slct.{t}.f32"), &[c, c, Class::F32], c.reg());
        b.op(&format!("slct.ftz.{t}.f32"), &[c, c, Class::F32], c.reg());
    }
    Module {
        name: "cmp",
        forms: b.forms,
    }
}

/// The class of a cvt operand type.
fn cvt_class(t: &str) -> Class {
    match t {
        "f16" => Class::F16,
        "bf16" => Class::Bf16,
        "f32" => Class::F32,
        "f64" => Class::F64,
        _ => int_class(t),
    }
}

fn cvt_int_module() -> Module {
    let mut b = Builder { forms: Vec::new() };
    for d in INTS {
        for s in INTS {
            let (dc, sc) = (cvt_class(d), cvt_class(s));
            if d != s {
                b.op(&format!("cvt.{d}.{s}"), &[sc], dc.reg());
            }
            // .sat only where d cannot hold every s (ptxas refuses it elsewhere).
            let (db, sb) = (
                d[1..].parse::<u32>().unwrap(),
                s[1..].parse::<u32>().unwrap(),
            );
            let holds = match (d.starts_with('s'), s.starts_with('s')) {
                (true, true) | (false, false) => db >= sb,
                (true, false) => db > sb,
                (false, true) => false,
            };
            if !holds {
                b.op(&format!("cvt.sat.{d}.{s}"), &[sc], dc.reg());
            }
        }
    }
    for d in ["f16", "bf16", "f32", "f64"] {
        for s in INTS {
            if d == "bf16" && s.ends_with('8') {
                continue; // no cvt between bf16 and 8-bit integers
            }
            for rnd in ROUND {
                b.op(
                    &format!("cvt.{rnd}.{d}.{s}"),
                    &[cvt_class(s)],
                    cvt_class(d).reg(),
                );
            }
        }
    }
    Module {
        name: "cvt_int",
        forms: b.forms,
    }
}

fn cvt_float_module() -> Module {
    let mut b = Builder { forms: Vec::new() };
    for s in ["f16", "bf16", "f32", "f64"] {
        for d in INTS {
            if s == "bf16" && d.ends_with('8') {
                continue; // no cvt between bf16 and 8-bit integers
            }
            for rnd in IROUND {
                let (dc, sc) = (cvt_class(d), cvt_class(s));
                b.op(&format!("cvt.{rnd}.{d}.{s}"), &[sc], dc.reg());
                if s == "f32" {
                    b.op(&format!("cvt.{rnd}.ftz.{d}.{s}"), &[sc], dc.reg());
                }
            }
        }
        if s != "bf16" {
            b.op(&format!("cvt.rzi.sat.s32.{s}"), &[cvt_class(s)], Reg::B32);
        }
    }
    let (f, d, h, bh) = (Class::F32, Class::F64, Class::F16, Class::Bf16);
    b.op("cvt.f64.f32", &[f], Reg::F64);
    b.op("cvt.ftz.f64.f32", &[f], Reg::F64);
    for rnd in ROUND {
        b.op(&format!("cvt.{rnd}.f32.f64"), &[d], Reg::F32);
        b.op(&format!("cvt.{rnd}.ftz.f32.f64"), &[d], Reg::F32);
        b.op(&format!("cvt.{rnd}.sat.f32.f64"), &[d], Reg::F32);
        b.op(&format!("cvt.{rnd}.f16.f32"), &[f], Reg::B16);
        b.op(&format!("cvt.{rnd}.f16.f64"), &[d], Reg::B16);
        b.op(&format!("cvt.{rnd}.bf16.f64"), &[d], Reg::B16);
        b.op(&format!("cvt.{rnd}.bf16.f32"), &[f], Reg::B16);
    }
    for rnd in IROUND {
        b.op(&format!("cvt.{rnd}.f32.f32"), &[f], Reg::F32);
        b.op(&format!("cvt.{rnd}.ftz.f32.f32"), &[f], Reg::F32);
        b.op(&format!("cvt.{rnd}.f64.f64"), &[d], Reg::F64);
        b.op(&format!("cvt.{rnd}.f16.f16"), &[h], Reg::B16);
        b.op(&format!("cvt.{rnd}.bf16.bf16"), &[bh], Reg::B16);
    }
    b.op("cvt.rn.sat.f16.f32", &[f], Reg::B16);
    b.op("cvt.f32.f16", &[h], Reg::F32);
    b.op("cvt.f64.f16", &[h], Reg::F64);
    b.op("cvt.f32.bf16", &[bh], Reg::F32);
    b.op("cvt.f64.bf16", &[bh], Reg::F64);
    b.op("cvt.rn.f16x2.f32", &[f, f], Reg::B32);
    b.op("cvt.rz.f16x2.f32", &[f, f], Reg::B32);
    b.op("cvt.rn.bf16x2.f32", &[f, f], Reg::B32);
    b.op("cvt.rz.bf16x2.f32", &[f, f], Reg::B32);
    Module {
        name: "cvt_float",
        forms: b.forms,
    }
}

fn half_module() -> Module {
    let mut b = Builder { forms: Vec::new() };
    for (t, c, ftz_sat) in [
        ("f16", Class::F16, true),
        ("bf16", Class::Bf16, false),
        ("f16x2", Class::F16x2, true),
        ("bf16x2", Class::Bf16x2, false),
    ] {
        let r = c.reg();
        let mods: &[&str] = if ftz_sat {
            &["", ".ftz", ".sat", ".ftz.sat"]
        } else {
            &[""]
        };
        for m in mods {
            for op in ["add", "sub", "mul"] {
                for rnd in ["", ".rn"] {
                    b.op(&format!("{op}{rnd}{m}.{t}"), &[c, c], r);
                }
            }
            b.op(&format!("fma.rn{m}.{t}"), &[c, c, c], r);
        }
        let ftz: &[&str] = if ftz_sat { &["", ".ftz"] } else { &[""] };
        for m in ftz {
            b.op(&format!("neg{m}.{t}"), &[c], r);
            b.op(&format!("abs{m}.{t}"), &[c], r);
            b.op(&format!("min{m}.{t}"), &[c, c], r);
            b.op(&format!("max{m}.{t}"), &[c, c], r);
            b.op(&format!("min{m}.NaN.{t}"), &[c, c], r);
            b.op(&format!("max{m}.NaN.{t}"), &[c, c], r);
        }
    }
    Module {
        name: "half",
        forms: b.forms,
    }
}

/// Every module of the suite.
pub fn modules() -> Vec<Module> {
    vec![
        int_module(),
        bits_module(),
        f32_module(),
        f64_module(),
        cmp_module(),
        cvt_int_module(),
        cvt_float_module(),
        half_module(),
    ]
}

/// The forms the translator refuses on purpose, each with its reason.
pub fn refused() -> Vec<Refused> {
    let mut b = Builder { forms: Vec::new() };
    let mut why = Vec::new();
    let (i, f, d, h, p) = (Class::I32, Class::F32, Class::F64, Class::F16, Class::Pred);
    let later = "not translated yet (docs/ptx-on-amd.md, what is refused)";
    for rnd in ["rz", "rm", "rp"] {
        b.op(&format!("fma.{rnd}.f64"), &[d, d, d], Reg::F64);
        why.push("an f64 fma in a directed rounding needs more than one exact error term");
    }
    for (name, ins, out) in [
        ("mad.hi.sat.s32", vec![i, i, i], Reg::B32),
        ("mad24.hi.sat.s32", vec![i, i, i], Reg::B32),
        ("min.relu.s32", vec![i, i], Reg::B32),
        ("tanh.approx.f32", vec![f], Reg::F32),
        ("ex2.approx.f16", vec![h], Reg::B16),
        ("cvt.rn.relu.f16.f32", vec![f], Reg::B16),
        ("setp.lt.f16x2", vec![Class::F16x2, Class::F16x2], Reg::Pred),
    ] {
        b.op(name, &ins, out);
        why.push(later);
    }
    let _ = p;
    b.forms
        .into_iter()
        .zip(why)
        .map(|(form, why)| Refused { form, why })
        .collect()
}

/// Threads per form (the edge values crossed, then pseudo-random values).
pub const N: usize = 4096;

/// A module's PTX text: one entry per form.
pub fn ptx(forms: &[Form]) -> String {
    let mut s = String::from(
        "//\n// anycuda's PTX conformance suite (tests/ptx_conformance): one entry per form\n//\n\n.version 8.0\n.target sm_90\n.address_size 64\n",
    );
    for f in forms {
        kernel(&mut s, f);
    }
    s
}

fn kernel(s: &mut String, f: &Form) {
    let e = &f.entry;
    let _ = write!(
        s,
        "\n.visible .entry {e}(\n\t.param .u64 {e}_a,\n\t.param .u64 {e}_b,\n\t.param .u64 {e}_c,\n\t.param .u64 {e}_o,\n\t.param .u32 {e}_n\n)\n{{\n"
    );
    s.push_str(
        "\t.reg .pred %sp<2>;\n\t.reg .b32 %sr<8>;\n\t.reg .b64 %sd<32>;\n\t.reg .pred %p<10>;\n\t.reg .b16 %h<10>;\n\t.reg .b32 %r<10>;\n\t.reg .b64 %rd<10>;\n\t.reg .f32 %f<10>;\n\t.reg .f64 %fd<10>;\n\n",
    );
    let _ = write!(
        s,
        "\tld.param.u64 %sd1, [{e}_a];\n\tld.param.u64 %sd2, [{e}_b];\n\tld.param.u64 %sd3, [{e}_c];\n\tld.param.u64 %sd4, [{e}_o];\n\tld.param.u32 %sr1, [{e}_n];\n"
    );
    s.push_str(
        "\tmov.u32 %sr2, %ctaid.x;\n\tmov.u32 %sr3, %ntid.x;\n\tmov.u32 %sr4, %tid.x;\n\tmad.lo.s32 %sr5, %sr2, %sr3, %sr4;\n\tsetp.ge.u32 %sp1, %sr5, %sr1;\n\t@%sp1 bra $L__done;\n\tmul.wide.u32 %sd5, %sr5, 8;\n",
    );
    for k in 1..=4 {
        let _ = write!(
            s,
            "\tcvta.to.global.u64 %sd{}, %sd{k};\n\tadd.s64 %sd{}, %sd{}, %sd5;\n",
            5 + k,
            10 + k,
            5 + k
        );
    }
    for (k, c) in f.ins.iter().enumerate() {
        let k = k + 1;
        let raw = format!("%sd{}", 20 + k);
        let _ = writeln!(s, "\tld.global.u64 {raw}, [%sd{}];", 10 + k);
        let r = c.reg().name(k);
        let _ = match c.reg() {
            Reg::B16 => writeln!(s, "\tcvt.u16.u64 {r}, {raw};"),
            Reg::B32 => writeln!(s, "\tcvt.u32.u64 {r}, {raw};"),
            Reg::B64 => writeln!(s, "\tmov.b64 {r}, {raw};"),
            Reg::F32 => writeln!(s, "\tcvt.u32.u64 %sr6, {raw};\n\tmov.b32 {r}, %sr6;"),
            Reg::F64 => writeln!(s, "\tmov.b64 {r}, {raw};"),
            Reg::Pred => writeln!(
                s,
                "\tand.b64 {raw}, {raw}, 1;\n\tsetp.ne.u64 {r}, {raw}, 0;"
            ),
        };
    }
    let mut body = f.body.replace("{d}", &f.out.name(4));
    for (k, slot) in ["{a}", "{b}", "{c}"].iter().enumerate() {
        if let Some(c) = f.ins.get(k) {
            body = body.replace(slot, &c.reg().name(k + 1));
        }
    }
    let _ = writeln!(s, "\t{body}");
    let d = f.out.name(4);
    let _ = match f.out {
        Reg::B16 => writeln!(s, "\tcvt.u64.u16 %sd30, {d};"),
        Reg::B32 => writeln!(s, "\tcvt.u64.u32 %sd30, {d};"),
        Reg::B64 | Reg::F64 => writeln!(s, "\tmov.b64 %sd30, {d};"),
        Reg::F32 => writeln!(s, "\tmov.b32 %sr7, {d};\n\tcvt.u64.u32 %sd30, %sr7;"),
        Reg::Pred => writeln!(s, "\tselp.u64 %sd30, 1, 0, {d};"),
    };
    s.push_str("\tst.global.u64 [%sd14], %sd30;\n$L__done:\n\tret;\n}\n");
}

/// xorshift64*: the inputs, the same on every run.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// Edge values of each class (bits).
fn edges(c: Class) -> Vec<u64> {
    match c {
        Class::I16 => vec![
            0, 1, 2, 0xffff, 0x8000, 0x7fff, 0x8001, 15, 16, 17, 0xff, 0x80, 0x7f, 0x100, 0xfffe,
            0x1234, 0xaaaa, 0x5555, 7, 0xfff9,
        ],
        Class::I32 => vec![
            0,
            1,
            2,
            0xffff_ffff,
            0x8000_0000,
            0x7fff_ffff,
            0x8000_0001,
            0xffff_fffe,
            31,
            32,
            33,
            0xff,
            0x80,
            0x7f,
            0x8000,
            0xffff,
            0x1_0000,
            0x00ff_ffff,
            0x0080_0000,
            0xff80_0000,
            0x1234_5678,
            0xdead_beef,
            0x5555_5555,
            0xaaaa_aaaa,
            7,
            0xffff_fff9,
        ],
        Class::I64 => vec![
            0,
            1,
            2,
            u64::MAX,
            1 << 63,
            i64::MAX as u64,
            (1 << 63) + 1,
            0xffff_ffff,
            0x8000_0000,
            0x7fff_ffff,
            0xffff_ffff_8000_0000,
            0x1_0000_0000,
            63,
            64,
            65,
            0x0020_0000_0000_0000,
            0x001f_ffff_ffff_ffff,
            0x0020_0000_0000_0001,
            0xffe0_0000_0000_0000,
            0x1234_5678_9abc_def0,
            0xdead_beef_cafe_f00d,
            0x5555_5555_5555_5555,
            7,
            u64::MAX - 6,
        ],
        Class::Shift => vec![
            0,
            1,
            4,
            7,
            8,
            9,
            15,
            16,
            17,
            24,
            31,
            32,
            33,
            63,
            64,
            65,
            127,
            255,
            256,
            257,
            0x7fff_ffff,
            0x8000_0000,
            0xffff_ffff,
        ],
        Class::F16 => vec![
            0, 0x8000, 1, 0x8001, 0x03ff, 0x83ff, 0x0400, 0x8400, 0x7bff, 0xfbff, 0x7c00, 0xfc00,
            0x7e00, 0xfe00, 0x7d01, 0x7e5a, 0xfd37, 0x3c00, 0xbc00, 0x3800, 0x3e00, 0x4100, 0x3c01,
            0x3bff, 0x5640, 0x4248, 0x1400, 0x0200,
        ],
        Class::Bf16 => vec![
            0, 0x8000, 1, 0x8001, 0x007f, 0x807f, 0x0080, 0x8080, 0x7f7f, 0xff7f, 0x7f80, 0xff80,
            0x7fc0, 0xffc0, 0x7f81, 0x7fa5, 0xffd3, 0x3f80, 0xbf80, 0x3f00, 0x3fc0, 0x4020, 0x3f81,
            0x3f7f, 0x4b00, 0x4f00, 0x5f00, 0x4780,
        ],
        Class::F16x2 | Class::Bf16x2 => {
            let e = edges(if c == Class::F16x2 {
                Class::F16
            } else {
                Class::Bf16
            });
            (0..e.len())
                .map(|k| e[k] | (e[(k * 7 + 3) % e.len()] << 16))
                .collect()
        }
        Class::F32 => vec![
            0,
            0x8000_0000,
            1,
            0x8000_0001,
            0x007f_ffff,
            0x807f_ffff,
            0x0080_0000,
            0x8080_0000,
            0x7f7f_ffff,
            0xff7f_ffff,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0xffc0_0000,
            0x7fa0_0001,
            0x7fc1_2345,
            0xff81_0203,
            0x3f80_0000,
            0xbf80_0000,
            0x3f00_0000,
            0x3fc0_0000,
            0x4020_0000,
            0xc020_0000,
            0x3f80_0001,
            0x3f7f_ffff,
            0x4b00_0000,
            0x4b00_0001,
            0x4b7f_ffff,
            0x3eaa_aaab,
            0x4049_0fdb,
            0x7149_f2ca,
            0x0da2_4260,
            0x4f00_0000,
            0xcf00_0000,
            0x5f00_0000,
            0x5f80_0000,
            0x477f_e000,
            0x4780_0000,
            0x3effffff,
            0x3380_0000,
        ],
        Class::F64 => vec![
            0,
            1 << 63,
            1,
            (1 << 63) | 1,
            0x000f_ffff_ffff_ffff,
            0x8010_0000_0000_0000,
            0x0010_0000_0000_0000,
            0x7fef_ffff_ffff_ffff,
            0xffef_ffff_ffff_ffff,
            0x7ff0_0000_0000_0000,
            0xfff0_0000_0000_0000,
            0x7ff8_0000_0000_0000,
            0xfff8_0000_0000_0000,
            0x7ff4_0000_0000_0001,
            0x7ff8_1234_5678_9abc,
            0x3ff0_0000_0000_0000,
            0xbff0_0000_0000_0000,
            0x3fe0_0000_0000_0000,
            0x3ff8_0000_0000_0000,
            0x4004_0000_0000_0000,
            0x3ff0_0000_0000_0001,
            0x3fef_ffff_ffff_ffff,
            0x4330_0000_0000_0000,
            0x4330_0000_0000_0001,
            0x3fd5_5555_5555_5555,
            0x4009_21fb_5444_2d18,
            0x41e0_0000_0000_0000,
            0xc1e0_0000_0000_0000,
            0x43e0_0000_0000_0000,
            0x43f0_0000_0000_0000,
            0x3ff0_0000_1000_0000,
            0x3ff0_0000_0800_0000,
            0x47ef_ffff_e000_0000,
            0x36a0_0000_0000_0000,
            0x380f_ffff_f000_0000,
            0x40ef_fc00_0000_0000,
        ],
        Class::Pred => vec![0, 1],
    }
}

/// A pseudo-random value of a class: an edge, a value near 1 with random low bits (rounding
/// ties and near-ties), or random bits.
fn random(c: Class, r: &mut Rng) -> u64 {
    let x = r.next();
    let e = edges(c);
    match x % 4 {
        0 => e[(x >> 8) as usize % e.len()],
        1 => match c {
            Class::F32 => (0x3f00_0000 | (x >> 9) & 0x00ff_ffff) ^ ((x >> 40) & 0x8000_0000),
            Class::F64 => {
                0x3fe0_0000_0000_0000 | ((x >> 3) & 0x001f_ffff_ffff_ffff) ^ (x & (1 << 63))
            }
            Class::F16 => 0x3800 | ((x >> 20) & 0x07ff) | ((x >> 8) & 0x8000),
            Class::Bf16 => 0x3f00 | ((x >> 20) & 0x00ff) | ((x >> 8) & 0x8000),
            Class::Shift => (x >> 16) % 80,
            _ => x >> (x % 64),
        },
        _ => match c {
            Class::I16 | Class::F16 | Class::Bf16 => x >> 48,
            Class::I32 | Class::F32 | Class::F16x2 | Class::Bf16x2 => x >> 32,
            Class::Shift => {
                if x & 0x100 != 0 {
                    (x >> 20) % 70
                } else {
                    x >> 32
                }
            }
            Class::I64 | Class::F64 => r.next(),
            Class::Pred => x >> 63,
        },
    }
}

/// The inputs of a form: `[a, b, c]`, each `N` bit patterns (zeros for an unused slot). The
/// first elements cross the edge values of a and b (c runs through its own edges beside
/// them); the rest are pseudo-random, seeded by the form's name, so a form's inputs never
/// depend on which other forms exist.
pub fn inputs(f: &Form) -> [Vec<u64>; 3] {
    let seed = f.name.bytes().fold(0x9e37_79b9_7f4a_7c15u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    let mut r = Rng(seed | 1);
    let mut out = [vec![0; N], vec![0; N], vec![0; N]];
    let ea: Vec<u64> = f.ins.first().map(|c| edges(*c)).unwrap_or_default();
    let eb: Vec<u64> = f.ins.get(1).map(|c| edges(*c)).unwrap_or_default();
    let ec: Vec<u64> = f.ins.get(2).map(|c| edges(*c)).unwrap_or_default();
    let crossed = match f.ins.len() {
        0 => 0,
        1 => ea.len(),
        _ => (ea.len() * eb.len()).min(N / 2),
    };
    for i in 0..N {
        for (k, c) in f.ins.iter().enumerate() {
            out[k][i] = if i < crossed {
                match k {
                    0 => ea[i % ea.len()],
                    1 => eb[(i / ea.len()) % eb.len()],
                    _ => ec[(i * 7 + i / ea.len()) % ec.len()],
                }
            } else {
                random(*c, &mut r)
            };
        }
    }
    out
}

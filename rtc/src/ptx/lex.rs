//! The PTX lexer: text to tokens with their line and column. It never panics: every byte it
//! does not know becomes a [`PtxError::Syntax`].

use super::PtxError;

/// One token's kind.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Tok {
    /// A word: an opcode with its modifiers (`ld.global.v2.f32`), a directive (`.reg`), a
    /// register (`%r1`, `%tid.x`), a name or label (`$L__BB0_1`, `_Z3fooPf`).
    Word(String),
    /// An integer literal (its bits; a leading `-` is its own token).
    Int(u64),
    /// A float literal as its bits: `0f3F800000` (f32) or `0d3FF0000000000000` (f64).
    FloatBits { bits: u64, double: bool },
    /// A decimal float literal (`1.5`), kept as written.
    Float(String),
    /// A string literal (`.file 1 "a.cu"`, `.pragma "nounroll"`).
    Str(String),
    /// One punctuation character: `, ; : { } [ ] ( ) + - @ ! < > = |`.
    Punct(char),
}

/// A token with where it starts (1-based line and column).
#[derive(Debug, Clone)]
pub(crate) struct Token {
    pub tok: Tok,
    pub line: u32,
    pub col: u32,
}

fn word_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || matches!(c, b'_' | b'$' | b'%' | b'.')
}

fn word_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.')
}

/// Splits PTX text into tokens; comments (`//`, `/* */`) are skipped.
pub(crate) fn lex(src: &str) -> Result<Vec<Token>, PtxError> {
    let b = src.as_bytes();
    let (mut i, mut line, mut col) = (0usize, 1u32, 1u32);
    let mut out = Vec::new();
    let err = |line, col, m: String| PtxError::Syntax {
        line,
        column: col,
        message: m,
    };
    while i < b.len() {
        let c = b[i];
        let (l0, c0) = (line, col);
        let adv = |n: usize, i: &mut usize, col: &mut u32| {
            *i += n;
            *col = col.saturating_add(n as u32);
        };
        if c == b'\n' {
            i += 1;
            line = line.saturating_add(1);
            col = 1;
            continue;
        }
        if c.is_ascii_whitespace() {
            adv(1, &mut i, &mut col);
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            adv(2, &mut i, &mut col);
            loop {
                if i >= b.len() {
                    return Err(err(l0, c0, "unterminated comment".into()));
                }
                if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    adv(2, &mut i, &mut col);
                    break;
                }
                if b[i] == b'\n' {
                    line = line.saturating_add(1);
                    col = 1;
                    i += 1;
                } else {
                    adv(1, &mut i, &mut col);
                }
            }
            continue;
        }
        if c == b'"' {
            let start = i + 1;
            adv(1, &mut i, &mut col);
            while i < b.len() && b[i] != b'"' && b[i] != b'\n' {
                adv(1, &mut i, &mut col);
            }
            if i >= b.len() || b[i] != b'"' {
                return Err(err(l0, c0, "unterminated string".into()));
            }
            let s = String::from_utf8_lossy(&b[start..i]).into_owned();
            adv(1, &mut i, &mut col);
            out.push(Token {
                tok: Tok::Str(s),
                line: l0,
                col: c0,
            });
            continue;
        }
        if c.is_ascii_digit() {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'.') {
                adv(1, &mut i, &mut col);
            }
            // Exponent sign of a decimal float (1.5e-3).
            while i < b.len()
                && matches!(b[i], b'+' | b'-')
                && matches!(b[i - 1], b'e' | b'E')
                && !b[start..].starts_with(b"0x")
                && !b[start..].starts_with(b"0X")
            {
                adv(1, &mut i, &mut col);
                while i < b.len() && b[i].is_ascii_alphanumeric() {
                    adv(1, &mut i, &mut col);
                }
            }
            let text = std::str::from_utf8(&b[start..i]).unwrap_or_default();
            out.push(Token {
                tok: number(text).ok_or_else(|| err(l0, c0, format!("bad number `{text}`")))?,
                line: l0,
                col: c0,
            });
            continue;
        }
        if word_start(c) {
            let start = i;
            adv(1, &mut i, &mut col);
            // `::` belongs to the word (`L2::evict_last`, `tcgen05.fence::before_thread_sync`);
            // one `:` ends a label.
            while i < b.len() && (word_char(b[i]) || (b[i] == b':' && b.get(i + 1) == Some(&b':')))
            {
                adv(if b[i] == b':' { 2 } else { 1 }, &mut i, &mut col);
            }
            let w = std::str::from_utf8(&b[start..i])
                .unwrap_or_default()
                .to_owned();
            out.push(Token {
                tok: Tok::Word(w),
                line: l0,
                col: c0,
            });
            continue;
        }
        if b",;:{}[]()+-@!<>=|".contains(&c) {
            adv(1, &mut i, &mut col);
            out.push(Token {
                tok: Tok::Punct(c as char),
                line: l0,
                col: c0,
            });
            continue;
        }
        let shown = src.get(i..).and_then(|s| s.chars().next()).unwrap_or('?');
        return Err(err(l0, c0, format!("unexpected character {shown:?}")));
    }
    Ok(out)
}

/// A numeric literal: hex/octal/binary/decimal integers (an optional `U` suffix), `0f`/`0d`
/// float bits, decimal floats.
fn number(t: &str) -> Option<Tok> {
    let lower = t.to_ascii_lowercase();
    if let Some(h) = lower.strip_prefix("0f") {
        return (h.len() == 8)
            .then(|| u32::from_str_radix(h, 16).ok())
            .flatten()
            .map(|v| Tok::FloatBits {
                bits: v.into(),
                double: false,
            });
    }
    if let Some(h) = lower.strip_prefix("0d") {
        return (h.len() == 16)
            .then(|| u64::from_str_radix(h, 16).ok())
            .flatten()
            .map(|bits| Tok::FloatBits { bits, double: true });
    }
    let s = lower.strip_suffix('u').unwrap_or(&lower);
    if let Some(h) = s.strip_prefix("0x") {
        return u64::from_str_radix(h, 16).ok().map(Tok::Int);
    }
    if let Some(h) = s.strip_prefix("0b") {
        return u64::from_str_radix(h, 2).ok().map(Tok::Int);
    }
    if s.contains(['.', 'e']) {
        return s.parse::<f64>().ok().map(|_| Tok::Float(t.to_owned()));
    }
    if s.len() > 1 && s.starts_with('0') {
        return u64::from_str_radix(&s[1..], 8).ok().map(Tok::Int);
    }
    s.parse::<u64>().ok().map(Tok::Int)
}

//! A small, bounded MessagePack reader for AMD code-object metadata.
//!
//! Borrowing (strings and binaries point into the input), depth-limited, and it never
//! allocates more elements than the remaining input could hold (every element takes at least
//! one byte), so malformed or hostile input costs at most linear time and memory and yields an
//! error, never a panic.

/// One MessagePack value, borrowing from the input.
#[derive(Clone, Debug, PartialEq)]
pub enum Value<'a> {
    /// `nil`.
    Nil,
    /// `true` / `false`.
    Bool(bool),
    /// Any integer format (all fit an `i128`).
    Int(i128),
    /// `float 32` / `float 64`.
    Float(f64),
    /// A string's bytes (not checked for UTF-8).
    Str(&'a [u8]),
    /// Binary data.
    Bin(&'a [u8]),
    /// An array.
    Array(Vec<Value<'a>>),
    /// A map, in input order (keys may repeat; lookups take the first).
    Map(Vec<(Value<'a>, Value<'a>)>),
    /// An extension type and its data.
    Ext(i8, &'a [u8]),
}

/// How deep arrays and maps may nest (AMD metadata uses 4 levels).
pub const MAX_DEPTH: usize = 32;

/// Why the input is not MessagePack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Error {
    /// The input ends inside a value.
    Truncated,
    /// The reserved byte 0xc1.
    Reserved,
    /// Arrays or maps nested deeper than [`MAX_DEPTH`].
    TooDeep,
    /// Bytes left after the value (from [`parse`] only).
    Trailing,
}

impl<'a> Value<'a> {
    /// The value of the first entry whose key is the string `key`, in a map.
    pub fn get(&self, key: &str) -> Option<&Value<'a>> {
        match self {
            Value::Map(m) => m
                .iter()
                .find(|(k, _)| matches!(k, Value::Str(s) if *s == key.as_bytes()))
                .map(|(_, v)| v),
            _ => None,
        }
    }

    /// The string's text, if this is a UTF-8 string.
    pub fn as_str(&self) -> Option<&'a str> {
        match self {
            Value::Str(s) => core::str::from_utf8(s).ok(),
            _ => None,
        }
    }

    /// The integer, if this is a non-negative one that fits `u64`.
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Value::Int(i) => u64::try_from(*i).ok(),
            _ => None,
        }
    }

    /// The elements, if this is an array.
    pub fn as_array(&self) -> Option<&[Value<'a>]> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }
}

/// Parses exactly one value filling `input`.
///
/// # Errors
/// [`Error`] for anything but one well-formed value.
pub fn parse(input: &[u8]) -> Result<Value<'_>, Error> {
    let mut r = Reader { b: input, pos: 0 };
    let v = r.value(0)?;
    if r.pos != input.len() {
        return Err(Error::Trailing);
    }
    Ok(v)
}

struct Reader<'a> {
    b: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn remaining(&self) -> usize {
        self.b.len() - self.pos
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], Error> {
        let end = self.pos.checked_add(n).ok_or(Error::Truncated)?;
        let s = self.b.get(self.pos..end).ok_or(Error::Truncated)?;
        self.pos = end;
        Ok(s)
    }

    fn be(&mut self, n: usize) -> Result<u64, Error> {
        Ok(self
            .take(n)?
            .iter()
            .fold(0u64, |a, &x| (a << 8) | u64::from(x)))
    }

    fn len(&mut self, n: usize) -> Result<usize, Error> {
        usize::try_from(self.be(n)?).map_err(|_| Error::Truncated)
    }

    fn signed(&mut self, n: usize) -> Result<i128, Error> {
        let v = self.be(n)?;
        let shift = 64 - 8 * n as u32;
        Ok(i128::from(((v << shift) as i64) >> shift))
    }

    fn ext(&mut self, len: usize) -> Result<Value<'a>, Error> {
        let t = self.take(1)?[0] as i8;
        Ok(Value::Ext(t, self.take(len)?))
    }

    fn array(&mut self, n: usize, depth: usize) -> Result<Value<'a>, Error> {
        if n > self.remaining() {
            return Err(Error::Truncated);
        }
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            v.push(self.value(depth + 1)?);
        }
        Ok(Value::Array(v))
    }

    fn map(&mut self, n: usize, depth: usize) -> Result<Value<'a>, Error> {
        if n > self.remaining() / 2 {
            return Err(Error::Truncated);
        }
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            let k = self.value(depth + 1)?;
            v.push((k, self.value(depth + 1)?));
        }
        Ok(Value::Map(v))
    }

    fn value(&mut self, depth: usize) -> Result<Value<'a>, Error> {
        if depth > MAX_DEPTH {
            return Err(Error::TooDeep);
        }
        let t = self.take(1)?[0];
        Ok(match t {
            0x00..=0x7f => Value::Int(i128::from(t)),
            0x80..=0x8f => return self.map(usize::from(t & 0x0f), depth),
            0x90..=0x9f => return self.array(usize::from(t & 0x0f), depth),
            0xa0..=0xbf => Value::Str(self.take(usize::from(t & 0x1f))?),
            0xc0 => Value::Nil,
            0xc1 => return Err(Error::Reserved),
            0xc2 => Value::Bool(false),
            0xc3 => Value::Bool(true),
            0xc4..=0xc6 => {
                let n = self.len(1 << (t - 0xc4))?;
                Value::Bin(self.take(n)?)
            }
            0xc7..=0xc9 => {
                let n = self.len(1 << (t - 0xc7))?;
                return self.ext(n);
            }
            0xca => Value::Float(f64::from(f32::from_bits(self.be(4)? as u32))),
            0xcb => Value::Float(f64::from_bits(self.be(8)?)),
            0xcc..=0xcf => Value::Int(i128::from(self.be(1 << (t - 0xcc))?)),
            0xd0..=0xd3 => Value::Int(self.signed(1 << (t - 0xd0))?),
            0xd4..=0xd8 => return self.ext(1 << (t - 0xd4)),
            0xd9..=0xdb => {
                let n = self.len(1 << (t - 0xd9))?;
                Value::Str(self.take(n)?)
            }
            0xdc | 0xdd => {
                let n = self.len(if t == 0xdc { 2 } else { 4 })?;
                return self.array(n, depth);
            }
            0xde | 0xdf => {
                let n = self.len(if t == 0xde { 2 } else { 4 })?;
                return self.map(n, depth);
            }
            0xe0..=0xff => Value::Int(i128::from(t as i8)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format() {
        let v = parse(&[
            0x8a, // map of 10
            0xa1, b'a', 0x05, // "a": 5
            0xa1, b'b', 0xff, // "b": -1
            0xa1, b'c', 0xcd, 0x01, 0x00, // uint16 256
            0xa1, b'd', 0xd1, 0xff, 0x00, // int16 -256
            0xa1, b'e', 0xd9, 0x02, b'h', b'i', // str8
            0xa1, b'f', 0x92, 0xc0, 0xc3, // [nil, true]
            0xa1, b'g', 0xc4, 0x01, 0x7f, // bin8
            0xa1, b'h', 0xd4, 0x01, 0x02, // fixext1
            0xa1, b'i', 0xcb, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0, // 1.0
            0xa1, b'j', 0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // u64 max
        ])
        .unwrap();
        assert_eq!(v.get("a").and_then(Value::as_u64), Some(5));
        assert_eq!(v.get("b"), Some(&Value::Int(-1)));
        assert_eq!(v.get("c").and_then(Value::as_u64), Some(256));
        assert_eq!(v.get("d"), Some(&Value::Int(-256)));
        assert_eq!(v.get("e").and_then(Value::as_str), Some("hi"));
        assert_eq!(
            v.get("f").and_then(Value::as_array),
            Some(&[Value::Nil, Value::Bool(true)][..])
        );
        assert_eq!(v.get("g"), Some(&Value::Bin(&[0x7f])));
        assert_eq!(v.get("h"), Some(&Value::Ext(1, &[2])));
        assert_eq!(v.get("i"), Some(&Value::Float(1.0)));
        assert_eq!(v.get("j").and_then(Value::as_u64), Some(u64::MAX));
        assert_eq!(v.get("z"), None);
    }

    #[test]
    fn malformed_input_is_an_error() {
        assert_eq!(parse(&[]), Err(Error::Truncated));
        assert_eq!(parse(&[0xc1]), Err(Error::Reserved));
        assert_eq!(parse(&[0x01, 0x02]), Err(Error::Trailing));
        // Huge declared lengths with nothing behind them: no allocation, an error.
        assert_eq!(
            parse(&[0xdd, 0xff, 0xff, 0xff, 0xff]),
            Err(Error::Truncated)
        );
        assert_eq!(
            parse(&[0xdf, 0xff, 0xff, 0xff, 0xff]),
            Err(Error::Truncated)
        );
        assert_eq!(
            parse(&[0xdb, 0xff, 0xff, 0xff, 0xff]),
            Err(Error::Truncated)
        );
        assert_eq!(
            parse(&[0xc9, 0xff, 0xff, 0xff, 0xff]),
            Err(Error::Truncated)
        );
        // Deep nesting.
        assert_eq!(parse(&[0x91; 1000]), Err(Error::TooDeep));
    }

    /// Every prefix and many byte flips of a real-looking document: never a panic.
    #[test]
    fn fuzz_prefixes_and_flips() {
        let doc: Vec<u8> = [
            &[0x82, 0xae][..],
            b"amdhsa.kernels",
            &[0x91, 0x83, 0xa5],
            b".name",
            &[0xa1, b'k', 0xa5],
            b".args",
            &[0x91, 0x83, 0xa7],
            b".offset",
            &[0x00, 0xa5],
            b".size",
            &[0x08, 0xab],
            b".value_kind",
            &[0xad],
            b"global_buffer",
            &[0xa7],
            b".symbol",
            &[0xa4],
            b"k.kd",
            &[0xae],
            b"amdhsa.version",
            &[0x92, 0x01, 0x01],
        ]
        .concat();
        assert!(parse(&doc).is_ok());
        for n in 0..doc.len() {
            let _ = parse(&doc[..n]);
        }
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..20_000 {
            let mut d = doc.clone();
            for _ in 0..3 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let i = (seed as usize) % d.len();
                d[i] = (seed >> 32) as u8;
            }
            let _ = parse(&d);
        }
    }
}

//! The few ELF64 (little-endian) structures the parameter readers need: the header, section
//! headers with their names, program headers and notes. Every read is bounds-checked.

use super::ParamsError;

pub(crate) const EM_CUDA: u16 = 190;
pub(crate) const EM_AMDGPU: u16 = 224;
const SHT_NOTE: u32 = 7;
const SHT_NOBITS: u32 = 8;
const PT_NOTE: u32 = 4;

pub(crate) fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(
        b.get(at..at.checked_add(2)?)?.try_into().ok()?,
    ))
}
pub(crate) fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(
        b.get(at..at.checked_add(4)?)?.try_into().ok()?,
    ))
}
pub(crate) fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(
        b.get(at..at.checked_add(8)?)?.try_into().ok()?,
    ))
}
fn usize_at(b: &[u8], at: usize) -> Option<usize> {
    usize::try_from(u64_at(b, at)?).ok()
}

const BAD: ParamsError = ParamsError::Malformed("ELF headers out of bounds");

/// One note: its name (without the NUL), type and descriptor.
pub(crate) type Note<'a> = (&'a [u8], u32, &'a [u8]);

/// One section.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Section<'a> {
    pub name: &'a [u8],
    pub kind: u32,
    pub align: u64,
    pub data: &'a [u8],
}

/// A parsed ELF64 little-endian file.
pub(crate) struct Elf<'a> {
    b: &'a [u8],
    pub machine: u16,
    shoff: usize,
    shnum: usize,
    shstrndx: usize,
    phoff: usize,
    phnum: usize,
}

impl<'a> Elf<'a> {
    /// Reads the header; `Ok(None)` when `b` is no ELF.
    pub fn parse(b: &'a [u8]) -> Result<Option<Self>, ParamsError> {
        if !b.starts_with(b"\x7fELF") {
            return Ok(None);
        }
        if b.get(4) != Some(&2) || b.get(5) != Some(&1) {
            return Err(ParamsError::Unsupported("not a 64-bit little-endian ELF"));
        }
        let machine = u16_at(b, 18).ok_or(BAD)?;
        let phoff = usize_at(b, 32).ok_or(BAD)?;
        let shoff = usize_at(b, 40).ok_or(BAD)?;
        let phentsize = usize::from(u16_at(b, 54).ok_or(BAD)?);
        let mut phnum = usize::from(u16_at(b, 56).ok_or(BAD)?);
        let shentsize = usize::from(u16_at(b, 58).ok_or(BAD)?);
        let mut shnum = usize::from(u16_at(b, 60).ok_or(BAD)?);
        let mut shstrndx = usize::from(u16_at(b, 62).ok_or(BAD)?);
        if shnum > 0 || shoff != 0 {
            if shentsize != 64 {
                return Err(BAD);
            }
            // Extended numbering: the real counts live in section 0.
            if shnum == 0 {
                shnum = usize_at(b, shoff.checked_add(32).ok_or(BAD)?).ok_or(BAD)?;
            }
            if shstrndx == 0xffff {
                shstrndx = u32_at(b, shoff.checked_add(40).ok_or(BAD)?).ok_or(BAD)? as usize;
            }
            let end = shnum
                .checked_mul(64)
                .and_then(|n| n.checked_add(shoff))
                .ok_or(BAD)?;
            if end > b.len() {
                return Err(BAD);
            }
        }
        if phnum > 0 {
            if phentsize != 56 {
                return Err(BAD);
            }
            if phnum == 0xffff {
                phnum = u32_at(b, shoff.checked_add(44).ok_or(BAD)?).ok_or(BAD)? as usize;
            }
            let end = phnum
                .checked_mul(56)
                .and_then(|n| n.checked_add(phoff))
                .ok_or(BAD)?;
            if end > b.len() {
                return Err(BAD);
            }
        }
        Ok(Some(Self {
            b,
            machine,
            shoff,
            shnum,
            shstrndx,
            phoff,
            phnum,
        }))
    }

    fn raw_section(&self, i: usize) -> Option<(u32, u32, u64, &'a [u8])> {
        let h = self.shoff + i * 64;
        let name = u32_at(self.b, h)?;
        let kind = u32_at(self.b, h + 4)?;
        let off = usize_at(self.b, h + 24)?;
        let size = usize_at(self.b, h + 32)?;
        let align = u64_at(self.b, h + 48)?;
        let data = if kind == SHT_NOBITS {
            &[][..]
        } else {
            self.b.get(off..off.checked_add(size)?)?
        };
        Some((name, kind, align, data))
    }

    /// Every section, with its name.
    pub fn sections(&self) -> Result<Vec<Section<'a>>, ParamsError> {
        let strtab = if self.shstrndx < self.shnum {
            self.raw_section(self.shstrndx).ok_or(BAD)?.3
        } else {
            &[]
        };
        let mut v = Vec::with_capacity(self.shnum);
        for i in 0..self.shnum {
            let (name, kind, align, data) = self.raw_section(i).ok_or(BAD)?;
            let name = strtab
                .get(name as usize..)
                .map(|s| &s[..s.iter().position(|&c| c == 0).unwrap_or(s.len())])
                .unwrap_or(&[]);
            v.push(Section {
                name,
                kind,
                align,
                data,
            });
        }
        Ok(v)
    }

    /// Every note `(name without NUL, type, descriptor)`, from the note sections, or from the
    /// note segments where there are no sections.
    pub fn notes(&self) -> Result<Vec<Note<'a>>, ParamsError> {
        let mut areas: Vec<(&'a [u8], u64)> = self
            .sections()?
            .into_iter()
            .filter(|s| s.kind == SHT_NOTE)
            .map(|s| (s.data, s.align))
            .collect();
        if self.shnum == 0 {
            for i in 0..self.phnum {
                let h = self.phoff + i * 56;
                if u32_at(self.b, h) != Some(PT_NOTE) {
                    continue;
                }
                let off = usize_at(self.b, h + 8).ok_or(BAD)?;
                let size = usize_at(self.b, h + 32).ok_or(BAD)?;
                let align = u64_at(self.b, h + 48).ok_or(BAD)?;
                let data = off
                    .checked_add(size)
                    .and_then(|e| self.b.get(off..e))
                    .ok_or(BAD)?;
                areas.push((data, align));
            }
        }
        let mut out = Vec::new();
        for (d, align) in areas {
            let pad = if align == 8 { 8 } else { 4 };
            let up = |n: usize| n.checked_add(pad - 1).map(|n| n & !(pad - 1));
            let mut at = 0usize;
            while at + 12 <= d.len() {
                let bad = ParamsError::Malformed("ELF note out of bounds");
                let namesz = u32_at(d, at).ok_or(bad)? as usize;
                let descsz = u32_at(d, at + 4).ok_or(bad)? as usize;
                let kind = u32_at(d, at + 8).ok_or(bad)?;
                let name_at = at + 12;
                let desc_at = up(name_at.checked_add(namesz).ok_or(bad)?).ok_or(bad)?;
                let name = d.get(name_at..name_at + namesz).ok_or(bad)?;
                let name = name.strip_suffix(&[0]).unwrap_or(name);
                let desc_end = desc_at.checked_add(descsz).ok_or(bad)?;
                let desc = d.get(desc_at..desc_end).ok_or(bad)?;
                out.push((name, kind, desc));
                at = up(desc_end).ok_or(bad)?;
            }
        }
        Ok(out)
    }
}

/// The length of an ELF64 little-endian image from its headers: the furthest end of the
/// header, the section and program header tables, every section with file contents and every
/// segment. `None` for anything else or absurd values.
///
/// # Safety
/// `p` points to a complete ELF image (its magic already checked), whose headers are readable
/// as far as they claim.
pub(crate) unsafe fn image_len(p: *const u8, cap: usize) -> Option<usize> {
    // SAFETY: every ELF header starts with the magic, the class and the data encoding.
    let ident = unsafe { core::slice::from_raw_parts(p, 6) };
    if ident[4] != 2 || ident[5] != 1 {
        return None;
    }
    // SAFETY: an ELF64 header is 64 bytes.
    let h = unsafe { core::slice::from_raw_parts(p, 64) };
    let phoff = usize_at(h, 32)?;
    let shoff = usize_at(h, 40)?;
    let phnum = usize::from(u16_at(h, 56)?);
    let shnum = usize::from(u16_at(h, 60)?);
    if (shnum > 0 && u16_at(h, 58)? != 64) || (phnum > 0 && u16_at(h, 54)? != 56) {
        return None;
    }
    let sh_end = shoff.checked_add(shnum.checked_mul(64)?)?;
    let ph_end = phoff.checked_add(phnum.checked_mul(56)?)?;
    let mut end = 64usize.max(sh_end).max(ph_end);
    if end > cap {
        return None;
    }
    if shnum > 0 {
        // SAFETY: the section header table lies inside the image (its end was just computed
        // from the header, within `cap`).
        let t = unsafe { core::slice::from_raw_parts(p.add(shoff), shnum * 64) };
        for i in 0..shnum {
            if u32_at(t, i * 64 + 4)? != SHT_NOBITS {
                let e = usize_at(t, i * 64 + 24)?.checked_add(usize_at(t, i * 64 + 32)?)?;
                end = end.max(e);
            }
        }
    }
    if phnum > 0 {
        // SAFETY: as above, for the program header table.
        let t = unsafe { core::slice::from_raw_parts(p.add(phoff), phnum * 56) };
        for i in 0..phnum {
            let e = usize_at(t, i * 56 + 8)?.checked_add(usize_at(t, i * 56 + 32)?)?;
            end = end.max(e);
        }
    }
    (end <= cap).then_some(end)
}

//! Whether a packaged binary starts on the platform that will run it: a
//! platform's image has one C library (glibc), and a binary linked against
//! a newer one than that is refused by the dynamic loader before it runs a
//! single line. Read from the ELF file itself — whether it asks for a
//! dynamic loader, and the `GLIBC_x.y` symbol versions it needs — so the
//! answer holds whatever machine or build made it.

use std::fmt;

use object::elf;
use object::read::elf::{ElfFile64, FileHeader as _, ProgramHeader as _};
use object::{Endianness, FileKind};

/// A Linux platform that runs packaged binaries: x86-64, with at least
/// this glibc.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Platform {
    /// Its name in messages: `Gradescope's oldest base image (Ubuntu 18.04)`.
    pub name: &'static str,
    /// The oldest glibc it may have.
    pub glibc: Glibc,
}

/// Gradescope: its base images are Ubuntu 18.04 (glibc 2.27) to 24.04, and
/// a TA may pick any of them.
pub const GRADESCOPE: Platform =
    Platform { name: "Gradescope's oldest base image (Ubuntu 18.04)", glibc: Glibc(2, 27) };

/// The images a TA named with `--glibc`: whichever image the platform runs,
/// with at least the glibc given.
#[must_use]
pub fn named(glibc: Glibc) -> Platform {
    Platform { name: "the image --glibc names", glibc }
}

/// GitHub Actions' `ubuntu-latest` runner, which the workflow names:
/// Ubuntu 24.04 (glibc 2.39); it only ever moves to newer ones.
pub const GITHUB: Platform =
    Platform { name: "GitHub's ubuntu-latest runner (Ubuntu 24.04)", glibc: Glibc(2, 39) };

/// A glibc version, `major.minor`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Glibc(pub u32, pub u32);

impl std::str::FromStr for Glibc {
    type Err = String;

    /// `2.35`; anything else is an error saying what is expected.
    fn from_str(text: &str) -> Result<Glibc, String> {
        let numbers = text.split_once('.').and_then(|(major, minor)| {
            let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
            (digits(major) && digits(minor)).then(|| Some(Glibc(major.parse().ok()?, minor.parse().ok()?)))?
        });
        numbers.ok_or_else(|| "expected a glibc version such as 2.35".to_owned())
    }
}

impl fmt::Display for Glibc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.0, self.1)
    }
}

/// How a binary is linked, as its ELF file says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Linking {
    /// No dynamic loader: it runs on any x86-64 Linux.
    Static,
    /// Loaded by the dynamic loader, needing at least this glibc (`None`:
    /// no versioned glibc symbol at all).
    Dynamic(Option<Glibc>),
}

/// Why a binary would not start on a platform.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Unportable {
    /// Not an ELF executable of 64 bits (a script, a macOS binary, …).
    #[error("is not a 64-bit Linux executable")]
    NotElf,
    /// An ELF file for another processor.
    #[error("is built for another processor than x86-64, which the platform runs")]
    NotX86_64,
    /// An ELF file whose headers cannot be read.
    #[error("has ELF headers that cannot be read ({0})")]
    Malformed(String),
    /// It needs a newer glibc than the platform has.
    #[error("needs glibc {needs}, and {} has {}", .platform.name, .platform.glibc)]
    NewerGlibc {
        /// The newest version it needs.
        needs: Glibc,
        /// Where it would not start.
        platform: Platform,
    },
    /// It needs a glibc symbol version that is not a release number
    /// (`GLIBC_PRIVATE`, `GLIBC_ABI_DT_RELR`): tied to one build of glibc,
    /// or to one newer than the platform's.
    #[error("needs the C library's `{0}`, which ties it to this machine's glibc")]
    Unversioned(String),
}

/// How the ELF file `bytes` is linked.
///
/// # Errors
/// When it is not a 64-bit x86-64 ELF file, or its headers cannot be read.
pub fn linking(bytes: &[u8]) -> Result<Linking, Unportable> {
    if FileKind::parse(bytes) != Ok(FileKind::Elf64) {
        return Err(Unportable::NotElf);
    }
    let malformed = |e: object::Error| Unportable::Malformed(e.to_string());
    let file = ElfFile64::<Endianness>::parse(bytes).map_err(malformed)?;
    let (header, endian) = (file.elf_header(), file.endian());
    if header.e_machine(endian) != elf::EM_X86_64 {
        return Err(Unportable::NotX86_64);
    }
    let loader = header
        .program_headers(endian, bytes)
        .map_err(malformed)?
        .iter()
        .any(|ph| ph.p_type(endian) == elf::PT_INTERP);
    if !loader {
        return Ok(Linking::Static);
    }
    let sections = file.elf_section_table();
    let mut newest = None;
    if let Some((mut needs, link)) = sections.gnu_verneed(endian, bytes).map_err(malformed)? {
        let strings = sections.strings(endian, bytes, link).map_err(malformed)?;
        while let Some((_, mut versions)) = needs.next().map_err(malformed)? {
            while let Some(version) = versions.next().map_err(malformed)? {
                let name = version.name(endian, strings).map_err(malformed)?;
                let Some(number) = name.strip_prefix(b"GLIBC_") else { continue };
                let glibc = release(number)
                    .ok_or_else(|| Unportable::Unversioned(String::from_utf8_lossy(name).into_owned()))?;
                newest = newest.max(Some(glibc));
            }
        }
    }
    Ok(Linking::Dynamic(newest))
}

/// `2.34` (or `2.3.4`, read as `2.3`) as a [`Glibc`].
fn release(number: &[u8]) -> Option<Glibc> {
    let text = std::str::from_utf8(number).ok()?;
    let mut parts = text.split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    parts.all(|p| p.parse::<u32>().is_ok()).then_some(Glibc(major, minor))
}

/// Whether the ELF file `bytes` starts on `platform`: statically linked,
/// or needing no glibc newer than the platform's.
///
/// # Errors
/// Why it would not.
pub fn check(bytes: &[u8], platform: Platform) -> Result<Linking, Unportable> {
    let linking = linking(bytes)?;
    if let Linking::Dynamic(Some(needs)) = linking
        && needs > platform.glibc
    {
        return Err(Unportable::NewerGlibc { needs, platform });
    }
    Ok(linking)
}

/// The command that builds a statically linked `ttt-referee` and
/// `ttt-guard` into `ttt-static/bin/` of the directory it is run in, from
/// the clone at `repository`; it works from any directory. The target is
/// named so that only the binaries are static (proc-macros and build
/// scripts, which run on the host, stay dynamic).
#[must_use]
pub fn static_build_command(repository: &str) -> String {
    format!(
        "cargo install --locked --path {} --root ttt-static --target x86_64-unknown-linux-gnu \
         --config 'target.x86_64-unknown-linux-gnu.rustflags=[\"-C\",\"target-feature=+crt-static\"]'",
        shell_words::quote(repository)
    )
}

/// The clone this `ttt-referee` was built from (it may since have moved).
pub const REPOSITORY: &str = env!("CARGO_MANIFEST_DIR");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn releases_are_read_and_others_are_not() {
        assert_eq!(release(b"2.34"), Some(Glibc(2, 34)));
        assert_eq!(release(b"2.2.5"), Some(Glibc(2, 2)));
        assert_eq!(release(b"PRIVATE"), None);
        assert_eq!(release(b"ABI_DT_RELR"), None);
        assert!(Glibc(2, 4) < Glibc(2, 27));
        assert_eq!("2.35".parse(), Ok(Glibc(2, 35)));
        for bad in ["2", "2.", ".35", "2.35.1", "two.35", "-2.3", "2.+3"] {
            assert_eq!(
                bad.parse::<Glibc>(),
                Err("expected a glibc version such as 2.35".to_owned()),
                "{bad}"
            );
        }
    }

    #[test]
    fn what_is_not_an_x86_64_elf_file_is_refused() {
        assert_eq!(linking(b"#!/bin/sh\necho hi\n"), Err(Unportable::NotElf));
        assert_eq!(Unportable::NotElf.to_string(), "is not a 64-bit Linux executable");
        // An ELF header for AArch64 (e_machine 183), with nothing after it.
        let mut header = vec![0u8; 64];
        header[..7].copy_from_slice(b"\x7fELF\x02\x01\x01");
        header[16] = 2;
        header[18] = 183;
        header[20] = 1;
        header[52] = 64;
        assert_eq!(linking(&header), Err(Unportable::NotX86_64));
        assert_eq!(
            Unportable::NotX86_64.to_string(),
            "is built for another processor than x86-64, which the platform runs"
        );
        assert_eq!(
            Unportable::Unversioned("GLIBC_PRIVATE".to_owned()).to_string(),
            "needs the C library's `GLIBC_PRIVATE`, which ties it to this machine's glibc"
        );
    }
}

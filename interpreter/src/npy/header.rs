//! The header of a `.npy` file: magic, version, length, then a Python literal of a dictionary with
//! exactly the keys `descr`, `fortran_order` and `shape` — read as NumPy reads it (its
//! `numpy.lib.format` module evaluates the literal with `ast.literal_eval` and checks the keys and
//! their types), so that a file is accepted here exactly when NumPy would load it.
//!
//! Accepted: versions 1.0, 2.0 and 3.0; any spacing, either quote, trailing commas, keys in any
//! order (a repeated key keeps its last value, as in Python); `shape` a tuple of non-negative
//! integers in any of Python's integer spellings; `fortran_order` `True` or `False`.

/// What the header says.
#[derive(Debug, PartialEq, Eq)]
pub struct Header {
    /// The dtype's string, such as `<f4`.
    pub descr: String,
    /// Whether the data is in Fortran (column-major) order.
    pub fortran_order: bool,
    /// The array's shape.
    pub shape: Vec<usize>,
    /// Where the data starts in the file.
    pub data_offset: usize,
}

use std::fmt;

const MAGIC: &[u8] = b"\x93NUMPY";

/// Reads the header at the start of `bytes`.
pub fn read(bytes: &[u8]) -> Result<Header, String> {
    if !bytes.starts_with(MAGIC) {
        return Err("not a .npy file (missing the \\x93NUMPY magic)".into());
    }
    let (major, minor) = match bytes.get(6..8) {
        Some(&[major, minor]) => (major, minor),
        _ => return Err("truncated .npy header".into()),
    };
    let length_bytes = match (major, minor) {
        (1, 0) => 2,
        (2, 0) | (3, 0) => 4,
        _ => {
            return Err(format!(
                "unsupported .npy format version {major}.{minor} (1.0, 2.0 and 3.0 are)"
            ))
        }
    };
    let length = bytes
        .get(8..8 + length_bytes)
        .ok_or("truncated .npy header")?
        .iter()
        .rev()
        .fold(0usize, |length, &byte| length << 8 | usize::from(byte));
    let start = 8 + length_bytes;
    let text = bytes
        .get(start..start + length)
        .ok_or("truncated .npy header")?;
    let (descr, fortran_order, shape) = dictionary(text)?;
    Ok(Header {
        descr,
        fortran_order,
        shape,
        data_offset: start + length,
    })
}

/// A value of the header's literal.
#[derive(Debug)]
enum Literal {
    Text(String),
    Bool(bool),
    Integer(i128),
    Tuple(Vec<Literal>),
    None,
}

impl fmt::Display for Literal {
    /// The value as Python prints it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Literal::Text(text) => write!(f, "'{text}'"),
            Literal::Bool(true) => write!(f, "True"),
            Literal::Bool(false) => write!(f, "False"),
            Literal::Integer(value) => write!(f, "{value}"),
            Literal::Tuple(items) if items.len() == 1 => write!(f, "({},)", items[0]),
            Literal::Tuple(items) => {
                let items: Vec<String> = items.iter().map(Literal::to_string).collect();
                write!(f, "({})", items.join(", "))
            }
            Literal::None => write!(f, "None"),
        }
    }
}

/// The three entries of the header's dictionary, checked as NumPy checks them.
fn dictionary(text: &[u8]) -> Result<(String, bool, Vec<usize>), String> {
    let mut parser = Parser { text, position: 0 };
    let entries = parser.dictionary()?;
    parser.skip_space();
    if parser.position != text.len() {
        return Err("malformed .npy header: text after the dictionary".into());
    }
    let mut descr = None;
    let mut fortran_order = None;
    let mut shape = None;
    for (key, value) in entries {
        match key.as_str() {
            "descr" => descr = Some(value),
            "fortran_order" => fortran_order = Some(value),
            "shape" => shape = Some(value),
            other => return Err(format!("the .npy header has an unknown key '{other}'")),
        }
    }
    let missing = |key: &str| format!("the .npy header lacks '{key}'");
    let descr = match descr.ok_or_else(|| missing("descr"))? {
        Literal::Text(descr) => descr,
        other => return Err(format!("the .npy header's descr is {other}, not a string")),
    };
    let fortran_order = match fortran_order.ok_or_else(|| missing("fortran_order"))? {
        Literal::Bool(value) => value,
        other => {
            return Err(format!(
                "the .npy header's fortran_order is {other}, not True or False"
            ))
        }
    };
    let dims = match shape.ok_or_else(|| missing("shape"))? {
        Literal::Tuple(dims) => dims,
        other => return Err(format!("the .npy header's shape is {other}, not a tuple")),
    };
    let shape =
        dims.into_iter()
            .map(|dim| match dim {
                Literal::Integer(dim) => usize::try_from(dim)
                    .map_err(|_| format!("the .npy shape has the dimension {dim}")),
                other => Err(format!("the .npy shape has the dimension {other}")),
            })
            .collect::<Result<_, _>>()?;
    Ok((descr, fortran_order, shape))
}

/// A reader of the Python literals a `.npy` header holds.
struct Parser<'t> {
    text: &'t [u8],
    position: usize,
}

impl Parser<'_> {
    fn skip_space(&mut self) {
        while self
            .text
            .get(self.position)
            .is_some_and(|byte| b" \t\n\r\x0c".contains(byte))
        {
            self.position += 1;
        }
    }

    /// Skips space, then consumes `byte` if it comes next.
    fn eat(&mut self, byte: u8) -> bool {
        self.skip_space();
        let found = self.text.get(self.position) == Some(&byte);
        self.position += usize::from(found);
        found
    }

    fn expect(&mut self, byte: u8) -> Result<(), String> {
        if self.eat(byte) {
            Ok(())
        } else {
            Err(format!(
                "malformed .npy header: expected '{}' at byte {}",
                byte as char, self.position
            ))
        }
    }

    fn dictionary(&mut self) -> Result<Vec<(String, Literal)>, String> {
        self.expect(b'{')?;
        let mut entries = Vec::new();
        while !self.eat(b'}') {
            let Literal::Text(key) = self.literal()? else {
                return Err("malformed .npy header: a key is not a string".into());
            };
            self.expect(b':')?;
            entries.push((key, self.literal()?));
            if !self.eat(b',') {
                self.expect(b'}')?;
                break;
            }
        }
        Ok(entries)
    }

    fn literal(&mut self) -> Result<Literal, String> {
        self.skip_space();
        match self.text.get(self.position) {
            Some(b'\'' | b'"') => self.string(),
            Some(b'(') => self.tuple(),
            Some(b'0'..=b'9' | b'+' | b'-') => self.integer(),
            Some(byte) if byte.is_ascii_alphabetic() => self.name(),
            _ => Err(format!(
                "malformed .npy header: expected a value at byte {}",
                self.position
            )),
        }
    }

    fn tuple(&mut self) -> Result<Literal, String> {
        self.expect(b'(')?;
        let mut items = Vec::new();
        if self.eat(b')') {
            return Ok(Literal::Tuple(items));
        }
        items.push(self.literal()?);
        if !self.eat(b',') {
            // `(3)` is a parenthesised value, not a tuple.
            self.expect(b')')?;
            return Ok(items.pop().expect("one item was read"));
        }
        while !self.eat(b')') {
            items.push(self.literal()?);
            if !self.eat(b',') {
                self.expect(b')')?;
                break;
            }
        }
        Ok(Literal::Tuple(items))
    }

    /// A string literal without escapes or prefixes (NumPy writes none, and its descr strings
    /// need none); one with a backslash is refused.
    fn string(&mut self) -> Result<Literal, String> {
        let quote = self.text[self.position];
        let start = self.position + 1;
        let length = self.text[start..]
            .iter()
            .position(|&byte| byte == quote || byte == b'\\' || byte == b'\n')
            .filter(|&length| self.text[start + length] == quote)
            .ok_or("malformed .npy header: an unterminated or escaped string")?;
        self.position = start + length + 1;
        Ok(Literal::Text(
            String::from_utf8_lossy(&self.text[start..start + length]).into_owned(),
        ))
    }

    /// An integer in Python's spelling: an optional sign, then decimal, `0x`, `0o` or `0b`
    /// digits, `_` between digits.
    fn integer(&mut self) -> Result<Literal, String> {
        let negative = self.eat(b'-');
        if !negative {
            self.eat(b'+');
        }
        self.skip_space();
        let word = std::str::from_utf8(self.word()).unwrap_or_default();
        let (radix, digits) = match word.get(..2).map(str::to_ascii_lowercase).as_deref() {
            Some("0x") => (16, &word[2..]),
            Some("0o") => (8, &word[2..]),
            Some("0b") => (2, &word[2..]),
            _ => (10, word),
        };
        let well_formed = !digits.is_empty()
            && !digits.starts_with('_')
            && !digits.ends_with('_')
            && !digits.contains("__")
            && (radix != 10 || digits == "0" || !digits.starts_with('0'));
        let value = i128::from_str_radix(&digits.replace('_', ""), radix)
            .ok()
            .filter(|_| well_formed)
            .ok_or_else(|| format!("malformed .npy header: '{word}' is not an integer"))?;
        Ok(Literal::Integer(if negative { -value } else { value }))
    }

    /// The run of letters, digits and underscores at the current position, consumed.
    fn word(&mut self) -> &[u8] {
        let start = self.position;
        while self
            .text
            .get(self.position)
            .is_some_and(|byte| byte.is_ascii_alphanumeric() || *byte == b'_')
        {
            self.position += 1;
        }
        &self.text[start..self.position]
    }

    fn name(&mut self) -> Result<Literal, String> {
        let start = self.position;
        Ok(match self.word() {
            b"True" => Literal::Bool(true),
            b"False" => Literal::Bool(false),
            b"None" => Literal::None,
            _ => {
                return Err(format!(
                    "malformed .npy header: unexpected name at byte {start}"
                ))
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(version: [u8; 2], header: &str) -> Vec<u8> {
        let mut bytes = MAGIC.to_vec();
        bytes.extend(version);
        if version[0] == 1 {
            bytes.extend((header.len() as u16).to_le_bytes());
        } else {
            bytes.extend((header.len() as u32).to_le_bytes());
        }
        bytes.extend(header.as_bytes());
        bytes
    }

    #[test]
    fn reads_what_numpy_writes_and_its_variants() {
        let written = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }        \n";
        let header = read(&file([1, 0], written)).unwrap();
        assert_eq!(header.descr, "<f4");
        assert!(!header.fortran_order);
        assert_eq!(header.shape, [2, 3]);
        assert_eq!(header.data_offset, 10 + written.len());
        let variant = "{ \"shape\" : (0x2 , +3 ,) ,'fortran_order':True,\n'descr':'<f4'}";
        let header = read(&file([3, 0], variant)).unwrap();
        assert!(header.fortran_order);
        assert_eq!(header.shape, [2, 3]);
        for (shape, dims) in [("()", vec![]), ("(7,)", vec![7]), ("(1_000,)", vec![1000])] {
            let text = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': {shape}}}");
            assert_eq!(read(&file([2, 0], &text)).unwrap().shape, dims, "{shape}");
        }
    }

    #[test]
    fn refuses_what_numpy_refuses() {
        let cases = [
            (
                [1, 1],
                "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}",
                "version 1.1",
            ),
            (
                [1, 0],
                "{'descr': '<f4', 'fortran_order': 1, 'shape': (2,)}",
                "fortran_order",
            ),
            (
                [1, 0],
                "{'descr': '<f4', 'fortran_order': None, 'shape': (2,)}",
                "fortran_order",
            ),
            (
                [1, 0],
                "{'descr': '<f4', 'fortran_order': 'x', 'shape': (2,)}",
                "fortran_order",
            ),
            (
                [1, 0],
                "{'descr': '<f4', 'fortran_order': False, 'shape': (2)}",
                "not a tuple",
            ),
            (
                [1, 0],
                "{'descr': '<f4', 'fortran_order': False, 'shape': (-2,)}",
                "dimension",
            ),
            (
                [1, 0],
                "{'descr': '<f4', 'fortran_order': False, 'shape': (02,)}",
                "integer",
            ),
            (
                [1, 0],
                "{'descr': '<f4', 'fortran_order': False}",
                "lacks 'shape'",
            ),
            (
                [1, 0],
                "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}",
                "key",
            ),
            (
                [1, 0],
                "{'descr'; '<f4', 'fortran_order': False, 'shape': (2,)}",
                "expected ':'",
            ),
            (
                [1, 0],
                "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}}",
                "after",
            ),
            (
                [1, 0],
                "{'descr': '<f4' 'fortran_order': False, 'shape': (2,)}",
                "expected '}'",
            ),
            (
                [1, 0],
                "{'descr': '<f4, 'fortran_order': False, 'shape': (2,)}",
                "malformed",
            ),
        ];
        for (version, header, expected) in cases {
            let error = read(&file(version, header)).unwrap_err();
            assert!(error.contains(expected), "{header}: {error}");
        }
        assert!(read(b"\x93NUMPY\x01\x00\xff\x00{")
            .unwrap_err()
            .contains("truncated"));
    }
}

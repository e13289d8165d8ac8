//! MLIR text checked before MLIR's parser reads it, for what the parser cannot survive.
//!
//! - **Dense arrays of `index` elements** (`array<index: 1>`, or `array<!t: 1>` after
//!   `!t = index`): MLIR 22's `Parser::parseDenseArrayAttr` accepts `index` as an element type and
//!   then asks it for its bit width, which crashes the process (upstream `mlir-opt` too). Every
//!   other element type is either valid or refused by the parser itself.
//! - **Nesting deeper than [`MAX_NESTING`]**: the parser recurses once per nested region,
//!   attribute, type or parenthesis, as do the verifier and every walk after it; ten thousand
//!   levels overflow any thread's stack. No model needs more than a few dozen.
//! - **MLIR bytecode**: the binary form bypasses both checks, so the tools read text only.
//!
//! The check is lexical: it skips string literals and comments, follows type aliases defined at
//! the top level, and counts brackets. A text it accepts may still be invalid MLIR; the parser
//! reports that with its own diagnostics.

use std::fmt;

/// The deepest nesting of brackets — `{}` (regions, dictionaries), `[]`, `()` and `<>` — that
/// the tools accept.
pub const MAX_NESTING: usize = 256;

/// The first bytes of MLIR's bytecode format, its magic number.
pub const BYTECODE_MAGIC: &[u8] = b"ML\xEFR";

/// Where the text was refused (1-based line and byte column, as MLIR counts them) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceError {
    /// The line of the offending token.
    pub line: usize,
    /// The byte column of the offending token.
    pub column: usize,
    /// What is refused and why.
    pub message: String,
}

impl fmt::Display for SourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

/// Refuses `text` if MLIR's parser would crash on it or recurse deeper than [`MAX_NESTING`].
pub fn check(text: &[u8]) -> Result<(), SourceError> {
    if text.starts_with(BYTECODE_MAGIC) {
        return Err(SourceError {
            line: 1,
            column: 1,
            message: "MLIR bytecode is not read: give the textual form".into(),
        });
    }
    let mut checker = Checker::default();
    let mut lexer = Lexer::new(text);
    while let Some(token) = lexer.next_token() {
        checker.accept(token)?;
    }
    Ok(())
}

/// A token of MLIR text, as far as the check needs to tell tokens apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind<'t> {
    /// An identifier or number, with its sigil (`!`, `#`, `%`, `@`, `^`) if it has one.
    Word(Option<u8>, &'t [u8]),
    /// Any other character outside strings and comments.
    Punct(u8),
    /// `->`, which is not a closing `>`.
    Arrow,
}

#[derive(Clone, Copy, Debug)]
struct Token<'t> {
    kind: Kind<'t>,
    line: usize,
    column: usize,
}

/// Splits text into [`Token`]s, skipping whitespace, comments and string literals.
struct Lexer<'t> {
    text: &'t [u8],
    position: usize,
    line: usize,
    line_start: usize,
}

impl<'t> Lexer<'t> {
    fn new(text: &'t [u8]) -> Self {
        Lexer {
            text,
            position: 0,
            line: 1,
            line_start: 0,
        }
    }

    fn peek(&self, offset: usize) -> Option<u8> {
        self.text.get(self.position + offset).copied()
    }

    /// Moves past one byte, counting lines.
    fn advance(&mut self) {
        if self.text[self.position] == b'\n' {
            self.line += 1;
            self.line_start = self.position + 1;
        }
        self.position += 1;
    }

    fn next_token(&mut self) -> Option<Token<'t>> {
        loop {
            let byte = self.peek(0)?;
            match byte {
                b' ' | b'\t' | b'\r' | b'\n' => self.advance(),
                b'/' if self.peek(1) == Some(b'/') => self.skip_while(|byte| byte != b'\n'),
                b'"' => self.skip_string(),
                _ => break,
            }
        }
        let (line, column, start) = (
            self.line,
            self.position - self.line_start + 1,
            self.position,
        );
        let byte = self.text[start];
        let kind = if is_word_start(byte) {
            self.skip_while(is_word_byte);
            Kind::Word(None, &self.text[start..self.position])
        } else if b"!#%@^".contains(&byte) && self.peek(1).is_some_and(is_word_byte) {
            self.advance();
            let name = self.position;
            self.skip_while(is_word_byte);
            Kind::Word(Some(byte), &self.text[name..self.position])
        } else if byte == b'-' && self.peek(1) == Some(b'>') {
            self.position += 2;
            Kind::Arrow
        } else {
            self.advance();
            Kind::Punct(byte)
        };
        Some(Token { kind, line, column })
    }

    fn skip_while(&mut self, keep: impl Fn(u8) -> bool) {
        while self.peek(0).is_some_and(&keep) {
            self.advance();
        }
    }

    /// Skips a string literal and its escapes; an unterminated one runs to the end of the text
    /// (the parser reports it).
    fn skip_string(&mut self) {
        self.advance();
        while let Some(byte) = self.peek(0) {
            self.advance();
            match byte {
                b'"' => return,
                b'\\' if self.peek(0).is_some() => self.advance(),
                _ => {}
            }
        }
    }
}

fn is_word_start(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_'
}

fn is_word_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || b"_$.".contains(&byte)
}

/// The state of the check across tokens: open brackets, type aliases of `index`, and the two
/// tokens before the current one.
#[derive(Default)]
struct Checker<'t> {
    open: Vec<u8>,
    index_aliases: Vec<&'t [u8]>,
    previous: [Option<Token<'t>>; 2],
}

impl<'t> Checker<'t> {
    fn accept(&mut self, token: Token<'t>) -> Result<(), SourceError> {
        if self.names_index(token.kind) {
            self.check_index_use()?;
        }
        match token.kind {
            Kind::Punct(opening @ (b'{' | b'[' | b'(' | b'<')) => {
                if self.open.len() == MAX_NESTING {
                    return Err(SourceError {
                        line: token.line,
                        column: token.column,
                        message: format!(
                            "nesting deeper than {MAX_NESTING} levels of regions, attributes, \
                             types or parentheses is not accepted"
                        ),
                    });
                }
                self.open.push(opening);
            }
            Kind::Punct(closing @ (b'}' | b']' | b')' | b'>')) => {
                let opening = match closing {
                    b'}' => b'{',
                    b']' => b'[',
                    b')' => b'(',
                    _ => b'<',
                };
                if self.open.last() == Some(&opening) {
                    self.open.pop();
                }
            }
            _ => {}
        }
        self.previous = [self.previous[1], Some(token)];
        Ok(())
    }

    /// Whether `kind` spells the `index` type: the keyword, or an alias of it.
    fn names_index(&self, kind: Kind) -> bool {
        match kind {
            Kind::Word(None, word) => word == b"index",
            Kind::Word(Some(b'!'), alias) => self.index_aliases.contains(&alias),
            _ => false,
        }
    }

    /// The current token names `index`: records a top-level alias `!name = index`, and refuses
    /// a dense array of `index` elements.
    fn check_index_use(&mut self) -> Result<(), SourceError> {
        let [Some(first), Some(second)] = self.previous else {
            return Ok(());
        };
        match (first.kind, second.kind) {
            (Kind::Word(Some(b'!'), alias), Kind::Punct(b'=')) if self.open.is_empty() => {
                self.index_aliases.push(alias);
                Ok(())
            }
            (Kind::Word(None, b"array"), Kind::Punct(b'<')) => Err(SourceError {
                line: first.line,
                column: first.column,
                message: "dense arrays of `index` elements are not accepted: MLIR 22's parser \
                          crashes on them (use `i64` elements)"
                    .into(),
            }),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(text: &str) -> SourceError {
        check(text.as_bytes()).expect_err(text)
    }

    #[test]
    fn refuses_dense_arrays_of_index_elements() {
        let error = refusal("module attributes {a = array<index: 1>} {}");
        assert_eq!((error.line, error.column), (1, 24));
        assert!(error.message.contains("dense arrays of `index`"));
        assert_eq!(
            refusal("module attributes {a = array<\n index>} {}").line,
            1
        );
        assert_eq!(
            refusal("!t = index\n!u = !t\nmodule attributes {a = array<!u: 1>} {}").line,
            3
        );
    }

    #[test]
    fn accepts_index_where_the_parser_takes_it() {
        for text in [
            "module attributes {a = array<i64: 1, 2>, b = 1 : index} {}",
            "func.func @f(%array: index) -> index { return %array : index }",
            "module attributes {a = \"array<index: 1>\"} {} // array<index: 1>",
            "!t = index\nmodule attributes {a = array<i32: 1>, b = 1 : !t} {}",
            "#map = affine_map<(d0) -> (d0 + 1)>\n#set = affine_set<(d0) : (d0 - 1 >= 0)>",
        ] {
            assert_eq!(check(text.as_bytes()), Ok(()), "{text}");
        }
    }

    #[test]
    fn bounds_the_nesting() {
        let nested = |depth: usize| "[".repeat(depth) + &"]".repeat(depth);
        let at_bound = format!("module attributes {{a = {}}} {{}}", nested(MAX_NESTING - 1));
        assert_eq!(check(at_bound.as_bytes()), Ok(()));
        let over = format!("module attributes {{a = {}}} {{}}", nested(MAX_NESTING));
        let error = refusal(&over);
        assert_eq!(error.column, 24 + MAX_NESTING - 1);
        assert!(error.message.contains("nesting deeper than 256"));
        let regions = "module {".repeat(10_000);
        assert!(refusal(&regions).message.contains("nesting deeper"));
    }

    #[test]
    fn arrows_and_comparisons_do_not_close_brackets() {
        let deep_map = format!("#m = {}", "affine_map<(d0) -> (d0)>".repeat(1000));
        assert_eq!(check(deep_map.as_bytes()), Ok(()));
    }

    #[test]
    fn refuses_bytecode() {
        let error = check(b"ML\xEFR\x00").unwrap_err();
        assert!(error.message.contains("bytecode"));
    }
}

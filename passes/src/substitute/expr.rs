//! Dimension expressions of rule files: the sizes a rule's shapes and computed attributes are
//! written in (`"o"`, `"o1 + o2"`, `2 * "h"`), and the conditions of its `rule.where`.
//!
//! A rule names the dimensions of its arguments so that the matcher can bind them to a match's
//! sizes and the target can be built from them. The language is deliberately small: integers,
//! names, `rank(g)` (the length of a dimension group, see [`super::sizes`]), `+ - *`, `%`
//! (Euclidean: `k % r` is an axis `k` in `[-r, r)` counted from the front) and parentheses; a
//! condition compares two expressions.

/// What an expression reads its names from: sizes and integers, and the lengths of dimension
/// groups ([`super::sizes::Env`] is what a match binds).
pub trait Scope {
    /// The size or integer bound to `name`.
    fn size(&self, name: &str) -> Option<i64>;
    /// The number of dimensions of the group `name`.
    fn rank(&self, group: &str) -> Option<usize>;
}

/// An integer expression over named sizes.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// A literal.
    Int(i64),
    /// A name bound by the match.
    Var(String),
    /// The length of a dimension group (`rank(p)`).
    Rank(String),
    /// A binary operation.
    Binary(Box<Expr>, BinaryOp, Box<Expr>),
}

/// The operations of [`Expr`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BinaryOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `%`, Euclidean (the result has the sign of the divisor).
    Rem,
}

/// How a condition compares.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Comparison {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

/// A condition of a rule's `rule.where`.
#[derive(Debug, Clone, PartialEq)]
pub struct Condition {
    /// Left side.
    pub lhs: Expr,
    /// The comparison.
    pub comparison: Comparison,
    /// Right side.
    pub rhs: Expr,
}

impl Expr {
    /// Parses `text` (a name, an integer, or `+ - *` of them with parentheses).
    pub fn parse(text: &str) -> Result<Expr, String> {
        let tokens = tokenize(text)?;
        let mut parser = Parser {
            tokens: &tokens,
            next: 0,
        };
        let expr = parser.sum()?;
        match parser.tokens.get(parser.next) {
            None => Ok(expr),
            Some(token) => Err(format!("unexpected '{token}' in '{text}'")),
        }
    }

    /// The value under `env`, None when a name is unbound or the arithmetic overflows.
    pub fn eval(&self, env: &impl Scope) -> Option<i64> {
        match self {
            Expr::Int(value) => Some(*value),
            Expr::Var(name) => env.size(name),
            Expr::Rank(group) => env.rank(group).map(|rank| rank as i64),
            Expr::Binary(lhs, op, rhs) => {
                let (lhs, rhs) = (lhs.eval(env)?, rhs.eval(env)?);
                match op {
                    BinaryOp::Add => lhs.checked_add(rhs),
                    BinaryOp::Sub => lhs.checked_sub(rhs),
                    BinaryOp::Mul => lhs.checked_mul(rhs),
                    BinaryOp::Rem => lhs.checked_rem_euclid(rhs),
                }
            }
        }
    }

    /// The name when the expression is a bare name (which a match binds rather than checks).
    pub fn as_var(&self) -> Option<&str> {
        match self {
            Expr::Var(name) => Some(name),
            _ => None,
        }
    }

    /// Adds the names (sizes and groups) the expression reads to `names`.
    pub fn names<'a>(&'a self, names: &mut Vec<&'a str>) {
        match self {
            Expr::Int(_) => {}
            Expr::Var(name) | Expr::Rank(name) => names.push(name),
            Expr::Binary(lhs, _, rhs) => {
                lhs.names(names);
                rhs.names(names);
            }
        }
    }
}

impl Condition {
    /// Parses `lhs <op> rhs`.
    pub fn parse(text: &str) -> Result<Condition, String> {
        const COMPARISONS: [(&str, Comparison); 6] = [
            ("==", Comparison::Eq),
            ("!=", Comparison::Ne),
            ("<=", Comparison::Le),
            (">=", Comparison::Ge),
            ("<", Comparison::Lt),
            (">", Comparison::Gt),
        ];
        for (symbol, comparison) in COMPARISONS {
            if let Some((lhs, rhs)) = text.split_once(symbol) {
                return Ok(Condition {
                    lhs: Expr::parse(lhs)?,
                    comparison,
                    rhs: Expr::parse(rhs)?,
                });
            }
        }
        Err(format!(
            "'{text}' is not a comparison (==, !=, <, <=, >, >=)"
        ))
    }

    /// Whether the condition holds under `env` (false when a name is unbound).
    pub fn holds(&self, env: &impl Scope) -> bool {
        let (Some(lhs), Some(rhs)) = (self.lhs.eval(env), self.rhs.eval(env)) else {
            return false;
        };
        match self.comparison {
            Comparison::Eq => lhs == rhs,
            Comparison::Ne => lhs != rhs,
            Comparison::Lt => lhs < rhs,
            Comparison::Le => lhs <= rhs,
            Comparison::Gt => lhs > rhs,
            Comparison::Ge => lhs >= rhs,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Int(i64),
    Name(String),
    Symbol(char),
}

impl std::fmt::Display for Token {
    fn fmt(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Token::Int(value) => write!(formatter, "{value}"),
            Token::Name(name) => formatter.write_str(name),
            Token::Symbol(symbol) => write!(formatter, "{symbol}"),
        }
    }
}

fn tokenize(text: &str) -> Result<Vec<Token>, String> {
    let mut tokens = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some(&(start, c)) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c.is_ascii_digit() {
            let mut end = start;
            while let Some(&(index, d)) = chars.peek().filter(|(_, d)| d.is_ascii_digit()) {
                end = index + d.len_utf8();
                chars.next();
            }
            let value = text[start..end]
                .parse()
                .map_err(|_| format!("'{}' is too large", &text[start..end]))?;
            tokens.push(Token::Int(value));
        } else if c.is_alphabetic() || c == '_' {
            let mut end = start;
            while let Some(&(index, d)) = chars
                .peek()
                .filter(|(_, d)| d.is_alphanumeric() || *d == '_')
            {
                end = index + d.len_utf8();
                chars.next();
            }
            tokens.push(Token::Name(text[start..end].to_owned()));
        } else if "+-*%()".contains(c) {
            tokens.push(Token::Symbol(c));
            chars.next();
        } else {
            return Err(format!("unexpected '{c}' in '{text}'"));
        }
    }
    Ok(tokens)
}

struct Parser<'a> {
    tokens: &'a [Token],
    next: usize,
}

impl Parser<'_> {
    fn sum(&mut self) -> Result<Expr, String> {
        let mut lhs = self.product()?;
        while let Some(op) = self.symbol(&[('+', BinaryOp::Add), ('-', BinaryOp::Sub)]) {
            lhs = Expr::Binary(Box::new(lhs), op, Box::new(self.product()?));
        }
        Ok(lhs)
    }

    fn product(&mut self) -> Result<Expr, String> {
        let mut lhs = self.atom()?;
        while let Some(op) = self.symbol(&[('*', BinaryOp::Mul), ('%', BinaryOp::Rem)]) {
            lhs = Expr::Binary(Box::new(lhs), op, Box::new(self.atom()?));
        }
        Ok(lhs)
    }

    fn atom(&mut self) -> Result<Expr, String> {
        let token = self
            .tokens
            .get(self.next)
            .cloned()
            .ok_or("an expression ends early")?;
        self.next += 1;
        match token {
            Token::Int(value) => Ok(Expr::Int(value)),
            Token::Name(name) if name == "rank" => {
                let group = match (self.tokens.get(self.next), self.tokens.get(self.next + 1)) {
                    (Some(Token::Symbol('(')), Some(Token::Name(group))) => group.clone(),
                    _ => return Err("'rank' takes a group: rank(p)".to_owned()),
                };
                match self.tokens.get(self.next + 2) {
                    Some(Token::Symbol(')')) => {
                        self.next += 3;
                        Ok(Expr::Rank(group))
                    }
                    _ => Err("'rank' takes a group: rank(p)".to_owned()),
                }
            }
            Token::Name(name) => Ok(Expr::Var(name)),
            Token::Symbol('-') => Ok(Expr::Binary(
                Box::new(Expr::Int(0)),
                BinaryOp::Sub,
                Box::new(self.atom()?),
            )),
            Token::Symbol('(') => {
                let inner = self.sum()?;
                match self.tokens.get(self.next) {
                    Some(Token::Symbol(')')) => {
                        self.next += 1;
                        Ok(inner)
                    }
                    _ => Err("a '(' is not closed".to_owned()),
                }
            }
            other => Err(format!("unexpected '{other}'")),
        }
    }

    fn symbol(&mut self, choices: &[(char, BinaryOp)]) -> Option<BinaryOp> {
        let Some(Token::Symbol(symbol)) = self.tokens.get(self.next) else {
            return None;
        };
        let op = choices.iter().find(|(c, _)| c == symbol)?.1;
        self.next += 1;
        Some(op)
    }
}

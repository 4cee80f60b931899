//! Expressions in scene files: the positions `x(u, t)` of a parametric object's points (seed 000
//! §5) and the scalar functions `C(x, t)` of `kind = "expression"` constraints (seed 000 §4.1,
//! differentiated as [`bead::autodiff`] does), parsed once and evaluated on any number type of
//! num-dual, so that the engine's second-order dual passes see exact derivatives.
//!
//! The grammar: numbers (`2`, `0.5`, `1e-3`), the names a caller allows
//! (`u0`, `t`, `a.x`), `pi`, `+ - * / ^` (or `**`) with the usual precedence, unary minus binding
//! looser than a power (`-u0^2` is `−(u0²)`), `^` right-associative (`2^3^2` is 512),
//! parentheses, and the functions `sin cos tan asin acos atan sinh cosh tanh exp ln sqrt abs`
//! and `atan2(y, x)`.
//!
//! Written here rather than taken from a crate: the expression crates that evaluate on `f64`
//! only (evalexpr, meval, fasteval) cannot carry dual numbers, and exmex, which is generic over
//! the number type, reads `-u0^2` as `(−u0)²` and `2^3^2` as 64 (a silently wrong curve),
//! rejects `1e-3`, and reports no position for a bad token. Errors here name the byte range of
//! the offending token, which the scene loader turns into a line and column of the file.
//!
//! ```
//! use bead_scene::expression::Expression;
//! let e = Expression::parse("-u0^2 + 2*sin(t)", &["u0", "t"])?;
//! assert_eq!(e.eval(|i| [3.0, 0.0][i]), -9.0);
//! let err = Expression::parse("u0 + u1", &["u0", "t"]).unwrap_err();
//! assert_eq!((err.start, err.message.as_str()), (5, "unknown name 'u1'"));
//! # Ok::<(), bead_scene::expression::ExpressionError>(())
//! ```

use std::fmt;

use bead::autodiff::DualNum;

/// A parse error: what is wrong, and where in the expression's text (byte offsets).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct ExpressionError {
    /// Byte offset of the offending token's first character.
    pub start: usize,
    /// Byte offset just past the offending token.
    pub end: usize,
    /// What is wrong, naming the token.
    pub message: String,
    /// How to fix it, when there is something useful to say.
    pub hint: Option<String>,
}

/// A parsed expression, ready to evaluate on `f64` or on dual numbers.
#[derive(Clone, PartialEq)]
pub struct Expression {
    /// Postfix program: constants folded, integer powers specialised.
    tape: Vec<Op>,
    /// Deepest the evaluation stack gets.
    depth: usize,
    /// Which of the allowed names the expression reads.
    used: Vec<bool>,
    text: String,
}

impl fmt::Debug for Expression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Expression({:?})", self.text)
    }
}

/// The functions of one argument.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Function {
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    Exp,
    Ln,
    Sqrt,
    Abs,
}

const FUNCTIONS: [(&str, Function); 13] = [
    ("sin", Function::Sin),
    ("cos", Function::Cos),
    ("tan", Function::Tan),
    ("asin", Function::Asin),
    ("acos", Function::Acos),
    ("atan", Function::Atan),
    ("sinh", Function::Sinh),
    ("cosh", Function::Cosh),
    ("tanh", Function::Tanh),
    ("exp", Function::Exp),
    ("ln", Function::Ln),
    ("sqrt", Function::Sqrt),
    ("abs", Function::Abs),
];

/// Names an expression may not give to a variable: the functions and constants.
pub const RESERVED: [&str; 15] = [
    "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "exp", "ln", "sqrt",
    "abs", "atan2", "pi",
];

impl Function {
    fn apply<T: DualNum<Primitive = f64> + Copy>(self, x: T) -> T {
        match self {
            Function::Sin => x.sin(),
            Function::Cos => x.cos(),
            Function::Tan => x.tan(),
            Function::Asin => x.asin(),
            Function::Acos => x.acos(),
            Function::Atan => x.atan(),
            Function::Sinh => x.sinh(),
            Function::Cosh => x.cosh(),
            Function::Tanh => x.tanh(),
            Function::Exp => x.exp(),
            Function::Ln => x.ln(),
            Function::Sqrt => x.sqrt(),
            // |x| with the derivative of the side x is on (its kink at 0 has none).
            Function::Abs => {
                if x < 0.0 {
                    -x
                } else {
                    x
                }
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Binary {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
}

/// One instruction of the postfix program.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    Number(f64),
    Variable(usize),
    Negate,
    Binary(Binary),
    /// `x^n` for a constant whole n: exact at x = 0, where `exp(n ln x)` is not.
    PowInteger(i32),
    /// `x^p` for a constant p.
    PowConstant(f64),
    Call(Function),
    Atan2,
}

/// The syntax tree, folded and then flattened into the tape.
#[derive(Clone, Debug, PartialEq)]
enum Node {
    Number(f64),
    Variable(usize),
    Negate(Box<Node>),
    Binary(Binary, Box<Node>, Box<Node>),
    Call(Function, Box<Node>),
    Atan2(Box<Node>, Box<Node>),
}

impl Expression {
    /// Parses `text`, whose variables are `names` (in that order: [`Expression::eval`]'s `var(i)`
    /// gives the value of `names[i]`). Names may contain dots (`a.x`).
    pub fn parse(text: &str, names: &[&str]) -> Result<Expression, ExpressionError> {
        let tokens = lex(text)?;
        let mut parser = Parser {
            text,
            tokens: &tokens,
            at: 0,
            names,
            used: vec![false; names.len()],
            end: text.len(),
            nesting: 0,
        };
        let tree = parser.sum()?;
        if let Some(token) = parser.peek() {
            let message = match token.kind {
                TokenKind::Close => "unmatched ')'".to_string(),
                _ => format!(
                    "expected an operator before '{}'",
                    &text[token.start..token.end]
                ),
            };
            return Err(ExpressionError {
                start: token.start,
                end: token.end,
                message,
                hint: Some("write products with `*`, as in `2*u0`".into()),
            });
        }
        let used = parser.used;
        let tree = fold(tree);
        let mut tape = Vec::new();
        let mut depth = 0;
        emit(&tree, &mut tape, 0, &mut depth);
        Ok(Expression {
            tape,
            depth,
            used,
            text: text.to_string(),
        })
    }

    /// The text it was parsed from.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether the expression reads the `i`-th of the names it was parsed with.
    pub fn uses(&self, i: usize) -> bool {
        self.used.get(i).copied().unwrap_or(false)
    }

    /// The value, with `var(i)` the value of the `i`-th name. Generic over num-dual's numbers
    /// (`f64`, `Dual2_64`, ...), so one expression gives values and exact derivatives alike.
    pub fn eval<T: DualNum<Primitive = f64> + Copy>(&self, var: impl Fn(usize) -> T) -> T {
        const INLINE: usize = 32;
        let zero = T::from(0.0);
        let mut inline = [zero; INLINE];
        let mut heap = Vec::new();
        let stack: &mut [T] = if self.depth <= INLINE {
            &mut inline
        } else {
            heap.resize(self.depth, zero);
            &mut heap
        };
        let mut top = 0;
        for op in &self.tape {
            match *op {
                Op::Number(x) => {
                    stack[top] = T::from(x);
                    top += 1;
                }
                Op::Variable(i) => {
                    stack[top] = var(i);
                    top += 1;
                }
                Op::Negate => stack[top - 1] = -stack[top - 1],
                Op::PowInteger(n) => stack[top - 1] = stack[top - 1].powi(n),
                Op::PowConstant(p) => stack[top - 1] = stack[top - 1].powf(p),
                Op::Call(f) => stack[top - 1] = f.apply(stack[top - 1]),
                Op::Binary(b) => {
                    top -= 1;
                    let (x, y) = (stack[top - 1], stack[top]);
                    stack[top - 1] = match b {
                        Binary::Add => x + y,
                        Binary::Sub => x - y,
                        Binary::Mul => x * y,
                        Binary::Div => x / y,
                        Binary::Pow => x.powd(y),
                    };
                }
                Op::Atan2 => {
                    top -= 1;
                    stack[top - 1] = stack[top - 1].atan2(stack[top]);
                }
            }
        }
        stack[0]
    }
}

/// Constant subtrees become numbers (`2*pi` is one constant), and powers by a constant become
/// their specialised instruction when flattened.
fn fold(node: Node) -> Node {
    let number = |n: &Node| match n {
        Node::Number(x) => Some(*x),
        _ => None,
    };
    match node {
        Node::Negate(a) => {
            let a = fold(*a);
            match number(&a) {
                Some(x) => Node::Number(-x),
                None => Node::Negate(Box::new(a)),
            }
        }
        Node::Binary(op, a, b) => {
            let (a, b) = (fold(*a), fold(*b));
            match (number(&a), number(&b)) {
                (Some(x), Some(y)) => Node::Number(apply_binary(op, x, y)),
                _ => Node::Binary(op, Box::new(a), Box::new(b)),
            }
        }
        Node::Call(f, a) => {
            let a = fold(*a);
            match number(&a) {
                Some(x) => Node::Number(f.apply(x)),
                None => Node::Call(f, Box::new(a)),
            }
        }
        Node::Atan2(a, b) => {
            let (a, b) = (fold(*a), fold(*b));
            match (number(&a), number(&b)) {
                (Some(y), Some(x)) => Node::Number(y.atan2(x)),
                _ => Node::Atan2(Box::new(a), Box::new(b)),
            }
        }
        leaf => leaf,
    }
}

fn apply_binary(op: Binary, x: f64, y: f64) -> f64 {
    match op {
        Binary::Add => x + y,
        Binary::Sub => x - y,
        Binary::Mul => x * y,
        Binary::Div => x / y,
        Binary::Pow => x.powf(y),
    }
}

/// Appends `node`'s postfix program; `height` is the stack height before it, `depth` the
/// deepest seen.
fn emit(node: &Node, tape: &mut Vec<Op>, height: usize, depth: &mut usize) {
    *depth = (*depth).max(height + 1);
    match node {
        Node::Number(x) => tape.push(Op::Number(*x)),
        Node::Variable(i) => tape.push(Op::Variable(*i)),
        Node::Negate(a) => {
            emit(a, tape, height, depth);
            tape.push(Op::Negate);
        }
        Node::Call(f, a) => {
            emit(a, tape, height, depth);
            tape.push(Op::Call(*f));
        }
        Node::Binary(Binary::Pow, a, b) if matches!(**b, Node::Number(_)) => {
            let Node::Number(p) = **b else { return };
            emit(a, tape, height, depth);
            let whole = p.fract() == 0.0 && p.abs() <= f64::from(i32::MAX);
            #[allow(clippy::cast_possible_truncation)]
            tape.push(if whole {
                Op::PowInteger(p as i32)
            } else {
                Op::PowConstant(p)
            });
        }
        Node::Binary(op, a, b) => {
            emit(a, tape, height, depth);
            emit(b, tape, height + 1, depth);
            tape.push(Op::Binary(*op));
        }
        Node::Atan2(a, b) => {
            emit(a, tape, height, depth);
            emit(b, tape, height + 1, depth);
            tape.push(Op::Atan2);
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum TokenKind {
    Number(f64),
    Name,
    Plus,
    Minus,
    Star,
    Slash,
    Caret,
    Open,
    Close,
    Comma,
}

#[derive(Clone, Copy, Debug)]
struct Token {
    kind: TokenKind,
    start: usize,
    end: usize,
}

fn lex(text: &str) -> Result<Vec<Token>, ExpressionError> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        let single = match c {
            b' ' | b'\t' | b'\n' | b'\r' => {
                i += 1;
                continue;
            }
            b'+' => Some(TokenKind::Plus),
            b'-' => Some(TokenKind::Minus),
            b'*' if bytes.get(i + 1) == Some(&b'*') => {
                i += 1;
                Some(TokenKind::Caret)
            }
            b'*' => Some(TokenKind::Star),
            b'/' => Some(TokenKind::Slash),
            b'^' => Some(TokenKind::Caret),
            b'(' => Some(TokenKind::Open),
            b')' => Some(TokenKind::Close),
            b',' => Some(TokenKind::Comma),
            _ => None,
        };
        if let Some(kind) = single {
            i += 1;
            tokens.push(Token {
                kind,
                start,
                end: i,
            });
            continue;
        }
        if c.is_ascii_digit() || c == b'.' {
            while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'.') {
                i += 1;
            }
            // An exponent only when digits follow, so that `2e` is reported as written.
            if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
                let mut j = i + 1;
                if j < bytes.len() && (bytes[j] == b'+' || bytes[j] == b'-') {
                    j += 1;
                }
                if j < bytes.len() && bytes[j].is_ascii_digit() {
                    while j < bytes.len() && bytes[j].is_ascii_digit() {
                        j += 1;
                    }
                    i = j;
                }
            }
            let literal = &text[start..i];
            let value: f64 = literal.parse().map_err(|_| ExpressionError {
                start,
                end: i,
                message: format!("'{literal}' is not a number"),
                hint: Some("numbers look like 2, 0.5 or 1e-3".into()),
            })?;
            tokens.push(Token {
                kind: TokenKind::Number(value),
                start,
                end: i,
            });
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            while i < bytes.len() {
                let b = bytes[i];
                let dotted = b == b'.'
                    && bytes
                        .get(i + 1)
                        .is_some_and(|n| n.is_ascii_alphabetic() || *n == b'_');
                if b.is_ascii_alphanumeric() || b == b'_' || dotted {
                    i += 1;
                } else {
                    break;
                }
            }
            tokens.push(Token {
                kind: TokenKind::Name,
                start,
                end: i,
            });
            continue;
        }
        let ch = text[start..].chars().next().unwrap_or('?');
        return Err(ExpressionError {
            start,
            end: start + ch.len_utf8(),
            message: format!("unexpected character '{ch}'"),
            hint: Some(
                "expressions use numbers, names, + - * / ^, parentheses and functions like sin(u0)"
                    .into(),
            ),
        });
    }
    Ok(tokens)
}

struct Parser<'a> {
    text: &'a str,
    tokens: &'a [Token],
    at: usize,
    names: &'a [&'a str],
    used: Vec<bool>,
    /// Length of the text, where "the end" errors point.
    end: usize,
    /// How many `unary` calls are open.
    nesting: usize,
}

/// Deepest nesting of parentheses and signs an expression may have.
const MAX_NESTING: usize = 256;

type Parsed = Result<Node, ExpressionError>;

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<Token> {
        self.tokens.get(self.at).copied()
    }

    fn next_if(&mut self, kind: TokenKind) -> Option<Token> {
        let token = self.peek().filter(|t| t.kind == kind)?;
        self.at += 1;
        Some(token)
    }

    fn error_here(&self, message: &str) -> ExpressionError {
        match self.peek() {
            Some(t) => ExpressionError {
                start: t.start,
                end: t.end,
                message: message.to_string(),
                hint: None,
            },
            None => ExpressionError {
                start: self.end,
                end: self.end,
                message: format!("{message}, found the end of the expression"),
                hint: None,
            },
        }
    }

    /// sum := product (('+' | '-') product)*
    fn sum(&mut self) -> Parsed {
        let mut left = self.product()?;
        loop {
            let op = if self.next_if(TokenKind::Plus).is_some() {
                Binary::Add
            } else if self.next_if(TokenKind::Minus).is_some() {
                Binary::Sub
            } else {
                return Ok(left);
            };
            left = Node::Binary(op, Box::new(left), Box::new(self.product()?));
        }
    }

    /// product := unary (('*' | '/') unary)*
    fn product(&mut self) -> Parsed {
        let mut left = self.unary()?;
        loop {
            let op = if self.next_if(TokenKind::Star).is_some() {
                Binary::Mul
            } else if self.next_if(TokenKind::Slash).is_some() {
                Binary::Div
            } else {
                return Ok(left);
            };
            left = Node::Binary(op, Box::new(left), Box::new(self.unary()?));
        }
    }

    /// unary := ('-' | '+') unary | power — so `-x^2` is `−(x²)`.
    fn unary(&mut self) -> Parsed {
        // Every nesting passes here: a bound keeps a hostile file from overflowing the stack.
        if self.nesting >= MAX_NESTING {
            return Err(self.error_here("the expression is nested too deeply"));
        }
        self.nesting += 1;
        let node = self.unary_inner();
        self.nesting -= 1;
        node
    }

    fn unary_inner(&mut self) -> Parsed {
        if self.next_if(TokenKind::Minus).is_some() {
            return Ok(Node::Negate(Box::new(self.unary()?)));
        }
        if self.next_if(TokenKind::Plus).is_some() {
            return self.unary();
        }
        self.power()
    }

    /// power := atom ('^' unary)? — right-associative, and `2^-1` allowed.
    fn power(&mut self) -> Parsed {
        let base = self.atom()?;
        if self.next_if(TokenKind::Caret).is_some() {
            let exponent = self.unary()?;
            return Ok(Node::Binary(
                Binary::Pow,
                Box::new(base),
                Box::new(exponent),
            ));
        }
        Ok(base)
    }

    /// atom := number | name | function '(' args ')' | '(' sum ')'
    fn atom(&mut self) -> Parsed {
        let Some(token) = self.peek() else {
            return Err(self.error_here("expected a number, a name or '('"));
        };
        match token.kind {
            TokenKind::Number(x) => {
                self.at += 1;
                Ok(Node::Number(x))
            }
            TokenKind::Open => {
                self.at += 1;
                let inner = self.sum()?;
                self.close(token)?;
                Ok(inner)
            }
            TokenKind::Name => {
                self.at += 1;
                self.name(token)
            }
            _ => Err(self.error_here("expected a number, a name or '('")),
        }
    }

    fn close(&mut self, open: Token) -> Result<(), ExpressionError> {
        if self.next_if(TokenKind::Close).is_some() {
            return Ok(());
        }
        let mut e = self.error_here("expected ')'");
        e.hint = Some(format!(
            "the '(' {} characters in is not closed",
            open.start
        ));
        Err(e)
    }

    fn name(&mut self, token: Token) -> Parsed {
        let name = &self.text[token.start..token.end];
        if let Some(i) = self.names.iter().position(|n| *n == name) {
            self.used[i] = true;
            return Ok(Node::Variable(i));
        }
        if name == "pi" {
            return Ok(Node::Number(std::f64::consts::PI));
        }
        let function = FUNCTIONS.iter().find(|(n, _)| *n == name).map(|(_, f)| *f);
        if function.is_some() || name == "atan2" {
            let Some(open) = self.next_if(TokenKind::Open) else {
                return Err(ExpressionError {
                    start: token.start,
                    end: token.end,
                    message: format!("'{name}' is a function: write {name}(...)"),
                    hint: None,
                });
            };
            let first = self.sum()?;
            let node = match function {
                Some(f) => Node::Call(f, Box::new(first)),
                None => {
                    if self.next_if(TokenKind::Comma).is_none() {
                        let mut e = self.error_here("expected ',' and a second argument");
                        e.hint = Some("atan2(y, x) takes two arguments".into());
                        return Err(e);
                    }
                    Node::Atan2(Box::new(first), Box::new(self.sum()?))
                }
            };
            self.close(open)?;
            return Ok(node);
        }
        let mut known: Vec<&str> = self.names.to_vec();
        known.push("pi");
        Err(ExpressionError {
            start: token.start,
            end: token.end,
            message: format!("unknown name '{name}'"),
            hint: Some(format!(
                "names here: {}; functions: {}, atan2",
                known.join(", "),
                FUNCTIONS.map(|(n, _)| n).join(", ")
            )),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bead::autodiff::Scalar;

    fn value(text: &str) -> f64 {
        Expression::parse(text, &["x", "y", "a.x"])
            .unwrap()
            .eval(|i| [3.0, 2.0, 0.5][i])
    }

    #[test]
    fn precedence_follows_mathematics() {
        assert_eq!(value("-x^2"), -9.0);
        assert_eq!(value("2^3^2"), 512.0);
        assert_eq!(value("2^-1"), 0.5);
        assert_eq!(value("x - y - 1"), 0.0);
        assert_eq!(value("12 / x / 2"), 2.0);
        assert_eq!(value("1 + 2 * x ^ 2"), 19.0);
        assert_eq!(value("-x * y"), -6.0);
        assert_eq!(value("3 - -2"), 5.0);
        assert_eq!(value("x ** 2"), 9.0);
        assert_eq!(value("(x + y) * a.x"), 2.5);
        assert_eq!(value("1e-3 * 2E+3"), 2.0);
        assert!((value("2*pi") - std::f64::consts::TAU).abs() < 1e-15);
        assert!((value("atan2(y, -x)") - 2f64.atan2(-3.0)).abs() < 1e-15);
        assert!((value("sqrt(abs(-x))") - 3f64.sqrt()).abs() < 1e-15);
    }

    #[test]
    fn derivatives_are_exact_on_dual_numbers() {
        // f = x² sin(y) + y^2.5 along the direction (1, 0): f', f'' in x.
        let e = Expression::parse("x^2*sin(y) + y^2.5 - exp(-x)/x", &["x", "y"]).unwrap();
        let (x, y) = (0.7, 1.3);
        let d = e.eval(|i| [Scalar::new(x, 1.0, 0.0), Scalar::from(y)][i]);
        let f = x * x * y.sin() + y.powf(2.5) - (-x).exp() / x;
        let df = 2.0 * x * y.sin() + (-x).exp() / x + (-x).exp() / (x * x);
        let d2f = 2.0 * y.sin()
            - (-x).exp() / x
            - 2.0 * (-x).exp() / (x * x)
            - 2.0 * (-x).exp() / (x * x * x);
        assert!((d.re - f).abs() < 1e-14);
        assert!((d.v1 - df).abs() < 1e-13);
        assert!((d.v2 - d2f).abs() < 1e-12, "{} vs {d2f}", d.v2);
        // An integer power is exact at zero, where exp(n ln x) would give NaN.
        let p = Expression::parse("x^3 + x^2", &["x"]).unwrap();
        let at0 = p.eval(|_| Scalar::new(0.0, 1.0, 0.0));
        assert_eq!((at0.re, at0.v1, at0.v2), (0.0, 0.0, 2.0));
    }

    #[test]
    fn errors_point_at_the_token() {
        let err = |text: &str| Expression::parse(text, &["u0", "t"]).unwrap_err();
        let e = err("0.5*cos(u1)");
        assert_eq!((e.start, e.end), (8, 10));
        assert_eq!(e.message, "unknown name 'u1'");
        assert!(e.hint.unwrap().contains("u0, t, pi"));
        let e = err("2 u0");
        assert_eq!(
            (e.start, e.message.as_str()),
            (2, "expected an operator before 'u0'")
        );
        let e = err("sin(u0");
        assert_eq!(e.start, 6);
        assert!(e.message.starts_with("expected ')'"));
        let e = err("u0 + * 2");
        assert_eq!(
            (e.start, e.message.as_str()),
            (5, "expected a number, a name or '('")
        );
        let e = err("u0 $ 1");
        assert_eq!(
            (e.start, e.message.as_str()),
            (3, "unexpected character '$'")
        );
        let e = err("sin + 1");
        assert_eq!(e.message, "'sin' is a function: write sin(...)");
        let e = err("");
        assert!(e.message.contains("the end of the expression"));
        let e = err("u0)");
        assert_eq!((e.start, e.message.as_str()), (2, "unmatched ')'"));
        let e = err("1.2.3");
        assert_eq!(e.message, "'1.2.3' is not a number");
    }

    #[test]
    fn constants_fold_and_depth_is_tracked() {
        let e = Expression::parse("2*pi*u0 + (1 + 2)*(u0 + (t + (u0 + t)))", &["u0", "t"]).unwrap();
        assert!(e.tape.len() < 14, "{:?}", e.tape);
        assert!(e.uses(0) && e.uses(1));
        assert_eq!(e.eval(|i| [1.0, 1.0][i]), 2.0 * std::f64::consts::PI + 12.0);
        let deep = format!("{}u0{}", "(1+".repeat(40), ")".repeat(40));
        let e = Expression::parse(&deep, &["u0"]).unwrap();
        assert_eq!(e.eval(|_| 1.0), 41.0);
        let hostile = "(".repeat(100_000);
        let e = Expression::parse(&hostile, &["u0"]).unwrap_err();
        assert_eq!(e.message, "the expression is nested too deeply");
    }
}

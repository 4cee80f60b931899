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
//! Scene files may be generated, so an expression may be very long: the parser writes a flat
//! postfix program as it reads (folding constants on the way), sums, products, powers and signs
//! are loops, and evaluation runs the program on a value stack. Nothing recurses with the
//! expression's length; only nesting (parentheses and function calls) does, up to
//! [`MAX_NESTING`] levels.
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
            tape: Vec::new(),
        };
        parser.sum()?;
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
        let Parser { tape, used, .. } = parser;
        let depth = stack_depth(&tape);
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

fn apply_binary(op: Binary, x: f64, y: f64) -> f64 {
    match op {
        Binary::Add => x + y,
        Binary::Sub => x - y,
        Binary::Mul => x * y,
        Binary::Div => x / y,
        Binary::Pow => x.powf(y),
    }
}

/// The deepest the evaluation stack gets running `tape`: each operand pushes one value, each
/// operator of two pops one.
fn stack_depth(tape: &[Op]) -> usize {
    let (mut height, mut depth) = (0_usize, 0);
    for op in tape {
        match op {
            Op::Number(_) | Op::Variable(_) => {
                height += 1;
                depth = depth.max(height);
            }
            Op::Binary(_) | Op::Atan2 => height = height.saturating_sub(1),
            Op::Negate | Op::PowInteger(_) | Op::PowConstant(_) | Op::Call(_) => {}
        }
    }
    depth
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

/// A recursive-descent parser that writes the postfix program as it reads, folding constants on
/// the way: there is no syntax tree, so nothing is walked (or dropped) recursively afterwards.
/// Sums, products, powers and signs are loops, however long; only nesting — parentheses and
/// function calls — recurses, and [`MAX_NESTING`] bounds it.
struct Parser<'a> {
    text: &'a str,
    tokens: &'a [Token],
    at: usize,
    names: &'a [&'a str],
    used: Vec<bool>,
    /// Length of the text, where "the end" errors point.
    end: usize,
    /// How many parentheses and function calls are open.
    nesting: usize,
    /// The postfix program so far.
    tape: Vec<Op>,
}

/// The deepest parentheses and function calls may nest in an expression. The parser recurses
/// once per level, so the bound keeps a hostile or generated file from overflowing the stack:
/// 256 levels take under 128 KB in this workspace's debug builds and under 1 MB unoptimised,
/// within a spawned thread's default 2 MB stack. Sums, products and powers of any length are not
/// nesting and have no limit.
pub const MAX_NESTING: usize = 256;

/// The largest constant exponent evaluated by repeated multiplication (`powi`); larger ones go
/// through `powf`. num-dual's `powi` forms n(n − 1) in `i32` for the second derivative, which
/// overflows past |n| = 46340 — a panic in debug builds, a wrong derivative in release — and
/// such powers are infinite or zero anyway unless the base is 1.
const MAX_INTEGER_POWER: f64 = 32768.0;

type Parsed = Result<(), ExpressionError>;

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

    /// Appends `op` to the program, folding it into a constant when its operands are constants,
    /// and a power by a constant into its specialised instruction. An operand whose program ends
    /// in a `Number` is that number alone (a number is a leaf, and constant operations are folded
    /// as they are written), so when the tape's last one or two instructions are numbers, they
    /// are exactly the operands: a syntax tree's folding, without building the tree.
    fn push(&mut self, op: Op) {
        let tape = &mut self.tape;
        let n = tape.len();
        let number = |k: usize| match tape.get(k) {
            Some(Op::Number(x)) => Some(*x),
            _ => None,
        };
        let unary = |f: &dyn Fn(f64) -> f64| number(n.wrapping_sub(1)).map(f);
        let binary = || number(n.wrapping_sub(2)).zip(number(n.wrapping_sub(1)));
        let folded = match op {
            Op::Negate => unary(&|x| -x).map(|x| (1, x)),
            Op::Call(f) => unary(&|x| f.apply(x)).map(|x| (1, x)),
            Op::Binary(b) => binary().map(|(x, y)| (2, apply_binary(b, x, y))),
            Op::Atan2 => binary().map(|(y, x)| (2, y.atan2(x))),
            Op::Number(_) | Op::Variable(_) | Op::PowInteger(_) | Op::PowConstant(_) => None,
        };
        if let Some((operands, x)) = folded {
            tape.truncate(n - operands);
            tape.push(Op::Number(x));
            return;
        }
        if let (Op::Binary(Binary::Pow), Some(p)) = (op, number(n.wrapping_sub(1))) {
            let whole = p.fract() == 0.0 && p.abs() <= MAX_INTEGER_POWER;
            tape.pop();
            #[allow(clippy::cast_possible_truncation)]
            tape.push(if whole {
                Op::PowInteger(p as i32)
            } else {
                Op::PowConstant(p)
            });
            return;
        }
        tape.push(op);
    }

    /// Runs `inner` one nesting level deeper, or fails at `at` (the token that opens the level)
    /// past [`MAX_NESTING`].
    fn nested(&mut self, at: Token, inner: impl FnOnce(&mut Self) -> Parsed) -> Parsed {
        if self.nesting >= MAX_NESTING {
            return Err(ExpressionError {
                start: at.start,
                end: at.end,
                message: format!("the expression is nested more than {MAX_NESTING} deep"),
                hint: Some(format!(
                    "parentheses and function calls may nest at most {MAX_NESTING} deep; sums \
                     and products of any length need no parentheses"
                )),
            });
        }
        self.nesting += 1;
        let parsed = inner(self);
        self.nesting -= 1;
        parsed
    }

    /// sum := product (('+' | '-') product)* — a loop, so a sum of any length is flat.
    fn sum(&mut self) -> Parsed {
        self.product()?;
        loop {
            let op = if self.next_if(TokenKind::Plus).is_some() {
                Binary::Add
            } else if self.next_if(TokenKind::Minus).is_some() {
                Binary::Sub
            } else {
                return Ok(());
            };
            self.product()?;
            self.push(Op::Binary(op));
        }
    }

    /// product := unary (('*' | '/') unary)*
    fn product(&mut self) -> Parsed {
        self.unary()?;
        loop {
            let op = if self.next_if(TokenKind::Star).is_some() {
                Binary::Mul
            } else if self.next_if(TokenKind::Slash).is_some() {
                Binary::Div
            } else {
                return Ok(());
            };
            self.unary()?;
            self.push(Op::Binary(op));
        }
    }

    /// unary := ('-' | '+')* power — so `-x^2` is `−(x²)`.
    fn unary(&mut self) -> Parsed {
        let negative = self.signs();
        self.power()?;
        if negative {
            self.push(Op::Negate);
        }
        Ok(())
    }

    /// Reads a run of signs, in a loop rather than one call per sign so that a chain of them
    /// is no deeper than one: whether they negate. −(−x) is x to the bit, so only an odd number
    /// of minus signs does.
    fn signs(&mut self) -> bool {
        let mut negative = false;
        loop {
            if self.next_if(TokenKind::Minus).is_some() {
                negative = !negative;
            } else if self.next_if(TokenKind::Plus).is_none() {
                return negative;
            }
        }
    }

    /// power := atom ('^' ('-' | '+')* atom)* — right-associative (`2^3^2` is 2⁹), a sign in an
    /// exponent applying to the rest of the chain (`2^-1^2` is 2^−(1²)), as the grammar
    /// `atom ('^' unary)?` reads it. A loop, not a call per `^`: the operands are written as
    /// they come, then the powers from the right, so a chain of any length is not nesting.
    fn power(&mut self) -> Parsed {
        self.atom()?;
        // Whether each exponent is negated, in order.
        let mut exponents = Vec::new();
        while self.next_if(TokenKind::Caret).is_some() {
            exponents.push(self.signs());
            self.atom()?;
        }
        for negative in exponents.into_iter().rev() {
            if negative {
                self.push(Op::Negate);
            }
            self.push(Op::Binary(Binary::Pow));
        }
        Ok(())
    }

    /// atom := number | name | function '(' args ')' | '(' sum ')'
    fn atom(&mut self) -> Parsed {
        let Some(token) = self.peek() else {
            return Err(self.error_here("expected a number, a name or '('"));
        };
        match token.kind {
            TokenKind::Number(x) => {
                self.at += 1;
                self.push(Op::Number(x));
                Ok(())
            }
            TokenKind::Open => {
                self.at += 1;
                self.nested(token, Self::sum)?;
                self.close(token)
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
            self.push(Op::Variable(i));
            return Ok(());
        }
        if name == "pi" {
            self.push(Op::Number(std::f64::consts::PI));
            return Ok(());
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
            self.nested(open, |p| {
                p.sum()?;
                if function.is_none() {
                    if p.next_if(TokenKind::Comma).is_none() {
                        let mut e = p.error_here("expected ',' and a second argument");
                        e.hint = Some("atan2(y, x) takes two arguments".into());
                        return Err(e);
                    }
                    p.sum()?;
                }
                Ok(())
            })?;
            self.push(function.map_or(Op::Atan2, Op::Call));
            return self.close(open);
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
        assert_eq!(value("2^-1^2"), 0.5);
        assert_eq!(value("x^-y^0 * x"), 1.0);
        assert_eq!(value("-y^2^-1^0"), -(2f64.powf(0.5)));
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
        // Huge constant exponents: exact derivatives, no integer overflow inside num-dual.
        for n in [40_000.0, 50_000.0, -50_000.0, 1e12] {
            let p = Expression::parse(&format!("x^({n})"), &["x"]).unwrap();
            let at1 = p.eval(|_| Scalar::new(1.0, 1.0, 0.0));
            assert_eq!((at1.re, at1.v1, at1.v2), (1.0, n, n * (n - 1.0)), "x^{n}");
        }
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
    }

    /// Runs `f` on a thread with the 2 MB stack a spawned thread gets by default, whatever
    /// `RUST_MIN_STACK` the test runner was given.
    fn on_a_default_stack<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> R {
        std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(f)
            .unwrap()
            .join()
            .unwrap()
    }

    /// 100,000 flat terms of every operator (issue 28, where the parser, the folding, the
    /// flattening and the syntax tree's drop each recursed once per term) parse into a program
    /// whose evaluation stack stays shallow, and evaluate exactly, derivatives included.
    #[test]
    fn flat_expressions_of_any_length_parse_and_evaluate() {
        const N: usize = 100_000;
        on_a_default_stack(|| {
            #[allow(clippy::cast_precision_loss)]
            let n = N as f64;
            let cases = [
                (format!("x{}", " + y".repeat(N)), 3.0 + 2.0 * n),
                (format!("x{}", " - y".repeat(N)), 3.0 - 2.0 * n),
                (format!("x{}", "*y*a.x".repeat(N)), 3.0),
                (format!("x{}", "/y/a.x".repeat(N)), 3.0),
                (format!("x{}", " + x*y - y*x".repeat(N)), 3.0),
                (format!("x{}", " + x^2 - 9".repeat(N)), 3.0),
                (format!("{}x", "-".repeat(N)), 3.0),
                (format!("{}x", "- +".repeat(N + 1)), -3.0),
                (format!("x{}", "*cos(0*y)".repeat(N)), 3.0),
            ];
            for (text, expected) in &cases {
                let e = Expression::parse(text, &["x", "y", "a.x"]).unwrap();
                assert!(e.depth <= 3, "{}…: depth {}", &text[..20], e.depth);
                assert_eq!(
                    e.eval(|i| [3.0, 2.0, 0.5][i]),
                    *expected,
                    "{}…",
                    &text[..20]
                );
            }
            // A chain of powers is right-associative however long: 1^1^⋯^x is 1, x^1^⋯^1 is x.
            let e = Expression::parse(&format!("{}x", "1^".repeat(N)), &["x"]).unwrap();
            assert_eq!(e.eval(|_| 3.0), 1.0);
            let e = Expression::parse(&format!("x{}", "^-1^2".repeat(N)), &["x"]).unwrap();
            assert_eq!((e.tape.len(), e.eval(|_| 4.0)), (2, 0.25));
            // 100,000 constants fold into one.
            let e = Expression::parse(&format!("1{} + x", " + 1".repeat(N)), &["x"]).unwrap();
            assert_eq!(e.tape.len(), 3, "{:?}", &e.tape[..3]);
            assert_eq!(e.eval(|_| 3.0), n + 4.0);
            // Derivatives along x of x·(y·½)ᴺ and of x + 0·x·y ⋯ on second-order dual numbers.
            let at = |i: usize| {
                [
                    Scalar::new(3.0, 1.0, 0.0),
                    Scalar::from(2.0),
                    Scalar::from(0.5),
                ][i]
            };
            for text in [
                format!("x{}", "*y*a.x".repeat(N)),
                format!("x{}", " + 0*x*y".repeat(N)),
            ] {
                let d = Expression::parse(&text, &["x", "y", "a.x"])
                    .unwrap()
                    .eval(at);
                assert_eq!((d.re, d.v1, d.v2), (3.0, 1.0, 0.0), "{}…", &text[..20]);
            }
        });
    }

    /// Nesting is what recurses: `MAX_NESTING` levels of parentheses, function calls and powers
    /// parse and evaluate on a 2 MB stack, and one more is an error naming the limit, at the
    /// token that opens the level too many.
    #[test]
    fn nesting_is_bounded_with_an_error_naming_the_limit() {
        on_a_default_stack(|| {
            let n = MAX_NESTING;
            // (opening, closing, where in the opening the level's token is, value at n levels)
            let mut sin = 3.0_f64;
            let mut atan = 3.0_f64;
            for _ in 0..n {
                sin = sin.sin();
                atan = 1f64.atan2(atan);
            }
            let shapes = [
                ("(", ")", 0, 3.0),
                ("sin(", ")", 3, sin),
                ("atan2(1, ", ")", 5, atan),
                ("-(", ")", 1, 3.0),
            ];
            for (open, close, token, value) in shapes {
                let text =
                    |levels: usize| format!("{}x{}", open.repeat(levels), close.repeat(levels));
                let e = Expression::parse(&text(n), &["x"]).unwrap();
                assert_eq!(e.eval(|_| 3.0), value, "{open}");
                let e = Expression::parse(&text(n + 1), &["x"]).unwrap_err();
                assert_eq!(
                    (e.start, e.message.as_str()),
                    (
                        n * open.len() + token,
                        "the expression is nested more than 256 deep"
                    ),
                    "{open}"
                );
                assert!(e.hint.unwrap().contains("at most 256 deep"));
            }
            // A hostile file: no recursion past the limit, however many levels it opens.
            let e = Expression::parse(&"(".repeat(100_000), &["x"]).unwrap_err();
            assert_eq!(e.start, MAX_NESTING);
        });
    }
}

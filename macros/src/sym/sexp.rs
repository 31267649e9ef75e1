//! S-expression printing (for tests and debugging) and a tiny parser used by tests.
use super::{Func, Graph, Id, Node};

impl Graph {
    /// Prints `e` as an s-expression, e.g. `(+ x (* 2 y))`.
    pub fn to_sexp(&self, e: Id) -> String {
        let mut out = String::new();
        self.write_sexp(e, &mut out);
        out
    }

    fn write_sexp(&self, e: Id, out: &mut String) {
        let op = |name: &str, args: &[Id], out: &mut String| {
            out.push('(');
            out.push_str(name);
            for &a in args {
                out.push(' ');
                self.write_sexp(a, out);
            }
            out.push(')');
        };
        match self.node(e) {
            Node::Const(bits) => out.push_str(&format!("{:?}", f64::from_bits(bits))),
            Node::Var(v) => out.push_str(self.var_name(v)),
            Node::Add(a, b) => op("+", &[a, b], out),
            Node::Mul(a, b) => op("*", &[a, b], out),
            Node::Div(a, b) => op("/", &[a, b], out),
            Node::Neg(a) => op("-", &[a], out),
            Node::Powi(a, n) => {
                out.push_str("(powi ");
                self.write_sexp(a, out);
                out.push_str(&format!(" {n})"));
            }
            Node::Func(f, a) => op(f.name(), &[a], out),
            Node::SelectLt(x, y, a, b) => op("select<", &[x, y, a, b], out),
        }
    }

    /// Parses an s-expression built from numbers, variable names (created on first use,
    /// looked up by name afterwards), `+ - * /` (binary; `-` with one operand negates),
    /// `(powi e n)`, the functions of [`Func`], and `(select< x y a b)`.
    pub fn parse_sexp(&mut self, s: &str) -> Id {
        let tokens: Vec<String> = s
            .replace('(', " ( ")
            .replace(')', " ) ")
            .split_whitespace()
            .map(str::to_owned)
            .collect();
        let mut pos = 0;
        let id = self.parse_tokens(&tokens, &mut pos);
        assert_eq!(pos, tokens.len(), "trailing tokens in {s}");
        id
    }

    fn parse_tokens(&mut self, t: &[String], pos: &mut usize) -> Id {
        let tok = t[*pos].clone();
        *pos += 1;
        if tok != "(" {
            if let Ok(x) = tok.parse::<f64>() {
                return self.constant(x);
            }
            let existing = (0..self.var_count()).find(|&i| self.var_names[i] == tok);
            return match existing {
                Some(i) => self.intern(Node::Var(super::VarId(i as u32))),
                None => self.new_var(tok).1,
            };
        }
        let head = t[*pos].clone();
        *pos += 1;
        let mut args = Vec::new();
        let mut int_arg = None;
        while t[*pos] != ")" {
            if head == "powi" && args.len() == 1 {
                int_arg = Some(t[*pos].parse::<i32>().expect("powi exponent"));
                *pos += 1;
            } else {
                args.push(self.parse_tokens(t, pos));
            }
        }
        *pos += 1;
        match (head.as_str(), args.as_slice()) {
            ("+", &[a, b]) => self.add(a, b),
            ("-", &[a]) => self.neg(a),
            ("-", &[a, b]) => self.sub(a, b),
            ("*", &[a, b]) => self.mul(a, b),
            ("/", &[a, b]) => self.div(a, b),
            ("powi", &[a]) => self.powi(a, int_arg.expect("powi exponent")),
            ("select<", &[x, y, a, b]) => self.select_lt(x, y, a, b),
            (name, &[a]) => {
                let f = Func::ALL.into_iter().find(|f| f.name() == name);
                self.func(f.unwrap_or_else(|| panic!("unknown function {name}")), a)
            }
            _ => panic!("bad s-expression head {head}"),
        }
    }
}

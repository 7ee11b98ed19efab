//! Writes an SGF tree back to text: FF[4] escaping, the main line as one sequence, variations in
//! parentheses, a line break every few moves so the file stays readable. Iterative, like the parser.

use super::tree::{NodeId, SgfTree};

/// Moves per line in the written file.
const NODES_PER_LINE: usize = 10;

enum Step {
    Open(NodeId),
    Close,
}

impl SgfTree {
    /// The tree as SGF text, variations included.
    pub fn to_sgf(&self) -> String {
        let mut out = String::new();
        if self.nodes.is_empty() {
            return out;
        }
        let mut stack = vec![Step::Close, Step::Open(SgfTree::ROOT)];
        let mut written = 0usize;
        while let Some(step) = stack.pop() {
            let mut id = match step {
                Step::Close => {
                    out.push(')');
                    continue;
                }
                Step::Open(id) => id,
            };
            out.push('(');
            // Write a sequence until the line branches or ends; each branch is a parenthesised tree.
            loop {
                write_node(self, id, &mut out);
                written += 1;
                if written % NODES_PER_LINE == 0 || id == SgfTree::ROOT {
                    out.push('\n');
                }
                let children = &self.nodes[id].children;
                match children.len() {
                    0 => break,
                    1 => id = children[0],
                    _ => {
                        for &child in children.iter().rev() {
                            stack.push(Step::Close);
                            stack.push(Step::Open(child));
                        }
                        break;
                    }
                }
            }
        }
        out.push('\n');
        out
    }
}

fn write_node(tree: &SgfTree, id: NodeId, out: &mut String) {
    out.push(';');
    for property in &tree.nodes[id].properties {
        out.push_str(&property.ident);
        for value in &property.values {
            out.push('[');
            for ch in String::from_utf8_lossy(&value.bytes).chars() {
                if ch == ']' || ch == '\\' {
                    out.push('\\');
                }
                out.push(ch);
            }
            out.push(']');
        }
    }
}

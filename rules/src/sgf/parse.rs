//! The SGF tokenizer and tree builder. It accepts FF[1]..FF[4] syntax as found in the wild: white space
//! anywhere between tokens, lower-case letters inside property identifiers (FF[3] style, ignored), and
//! text before the first `(;` (a mail header, a note with parentheses of its own), skipped as other
//! readers skip it. It refuses unbalanced parentheses, nodes outside a tree, unterminated values and
//! properties without a value, each with the line and column.

use super::tree::{NodeId, Property, SgfNode, SgfTree, Value};
use super::{Position, SgfError};

/// A file larger than this is refused before parsing: real records are a few kilobytes, and the bound
/// keeps a hostile upload from costing memory.
pub const MAX_SGF_BYTES: usize = 4 * 1024 * 1024;

struct Cursor<'a> {
    input: &'a [u8],
    offset: usize,
    line: u32,
    column: u32,
}

impl<'a> Cursor<'a> {
    fn position(&self) -> Position {
        Position {
            line: self.line,
            column: self.column,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.input.get(self.offset).copied()
    }

    fn bump(&mut self) -> Option<u8> {
        let byte = self.peek()?;
        self.offset += 1;
        if byte == b'\n' {
            self.line += 1;
            self.column = 1;
        } else if byte & 0xC0 != 0x80 {
            // Count characters, not UTF-8 continuation bytes.
            self.column += 1;
        }
        Some(byte)
    }

    fn skip_space(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.bump();
        }
    }

    fn error(&self, message: impl Into<String>) -> SgfError {
        SgfError {
            position: self.position(),
            message: message.into(),
        }
    }
}

/// Parses the first game tree of an SGF collection (further trees are ignored, as most viewers do).
pub fn parse_tree(input: &[u8]) -> Result<SgfTree, SgfError> {
    let mut cursor = Cursor {
        input,
        offset: 0,
        line: 1,
        column: 1,
    };
    if input.len() > MAX_SGF_BYTES {
        return Err(cursor.error(format!("the file is larger than {MAX_SGF_BYTES} bytes")));
    }
    skip_to_game_tree(&mut cursor)?;
    let mut tree = SgfTree::default();
    // For each open '(' the node that a following node attaches to: the branch point.
    let mut open: Vec<Option<NodeId>> = Vec::new();
    let mut current: Option<NodeId> = None;
    loop {
        cursor.skip_space();
        let position = cursor.position();
        match cursor.peek() {
            Some(b'(') => {
                cursor.bump();
                open.push(current);
            }
            Some(b')') => {
                cursor.bump();
                let Some(branch_point) = open.pop() else {
                    return Err(SgfError {
                        position,
                        message: "')' without a matching '('".into(),
                    });
                };
                if open.is_empty() {
                    break;
                }
                current = branch_point;
            }
            Some(b';') => {
                cursor.bump();
                if open.is_empty() {
                    return Err(cursor.error("a node outside any game tree"));
                }
                if current.is_none() && !tree.nodes.is_empty() {
                    return Err(SgfError {
                        position,
                        message: "a second root node".into(),
                    });
                }
                let node = parse_node(&mut cursor)?;
                current = Some(tree.add_node(current, node));
            }
            Some(byte) => {
                return Err(SgfError {
                    position,
                    message: format!("unexpected character {:?}", byte as char),
                })
            }
            None => return Err(cursor.error("unexpected end of input: a game tree is not closed")),
        }
    }
    if tree.nodes.is_empty() {
        return Err(SgfError {
            position: Position { line: 1, column: 1 },
            message: "the game tree has no nodes".into(),
        });
    }
    Ok(tree)
}

/// Moves the cursor to the first `(` followed by a node (`;`, white space allowed between), so prose
/// before the record is skipped whatever parentheses it has.
fn skip_to_game_tree(cursor: &mut Cursor<'_>) -> Result<(), SgfError> {
    loop {
        while cursor.peek().is_some_and(|b| b != b'(') {
            cursor.bump();
        }
        if cursor.peek().is_none() {
            return Err(cursor.error("no game tree: expected '(;'"));
        }
        let rest = cursor.input.get(cursor.offset + 1..).unwrap_or_default();
        let next = rest.iter().find(|b| !b.is_ascii_whitespace());
        if next == Some(&b';') {
            return Ok(());
        }
        cursor.bump();
    }
}

/// Reads the properties after a ';' up to the next ';', '(' or ')'.
fn parse_node(cursor: &mut Cursor<'_>) -> Result<SgfNode, SgfError> {
    let mut node = SgfNode::default();
    loop {
        cursor.skip_space();
        match cursor.peek() {
            Some(b) if b.is_ascii_alphabetic() => {
                let property = parse_property(cursor)?;
                match node
                    .properties
                    .iter_mut()
                    .find(|p| p.ident == property.ident)
                {
                    // A repeated identifier in one node is malformed; joining the values loses nothing.
                    Some(existing) => existing.values.extend(property.values),
                    None => node.properties.push(property),
                }
            }
            _ => return Ok(node),
        }
    }
}

fn parse_property(cursor: &mut Cursor<'_>) -> Result<Property, SgfError> {
    let start = cursor.position();
    let mut ident = String::new();
    while let Some(b) = cursor.peek().filter(u8::is_ascii_alphabetic) {
        cursor.bump();
        if b.is_ascii_uppercase() {
            ident.push(b as char);
        }
    }
    if ident.is_empty() {
        return Err(SgfError {
            position: start,
            message: "a property identifier needs at least one capital letter".into(),
        });
    }
    let mut values = Vec::new();
    loop {
        cursor.skip_space();
        if cursor.peek() != Some(b'[') {
            break;
        }
        values.push(parse_value(cursor)?);
    }
    if values.is_empty() {
        return Err(SgfError {
            position: start,
            message: format!("property {ident} has no value"),
        });
    }
    Ok(Property { ident, values })
}

/// Reads `[...]`, removing escapes: `\]` and `\\` stand for themselves, a backslash before a line
/// break removes both (a soft line break).
fn parse_value(cursor: &mut Cursor<'_>) -> Result<Value, SgfError> {
    let position = cursor.position();
    cursor.bump();
    let mut bytes = Vec::new();
    loop {
        match cursor.bump() {
            Some(b']') => return Ok(Value { bytes, position }),
            Some(b'\\') => match cursor.bump() {
                Some(b'\n') => {
                    if cursor.peek() == Some(b'\r') {
                        cursor.bump();
                    }
                }
                Some(b'\r') => {
                    if cursor.peek() == Some(b'\n') {
                        cursor.bump();
                    }
                }
                Some(escaped) => bytes.push(escaped),
                None => break,
            },
            Some(byte) => bytes.push(byte),
            None => break,
        }
    }
    Err(SgfError {
        position,
        message: "a property value is not closed with ']'".into(),
    })
}

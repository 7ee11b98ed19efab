//! The SGF game tree as parsed: nodes in an arena (indices, not boxes, so that a thousand-move main line
//! is not a thousand-deep recursion to drop or walk), each with its properties and children in order.

use super::Position;

/// Index of a node in its tree.
pub type NodeId = usize;

/// One property value: its raw bytes (escapes already removed) and where it started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Value {
    pub bytes: Vec<u8>,
    pub position: Position,
}

/// A property: an identifier such as `KM` and one or more values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Property {
    pub ident: String,
    pub values: Vec<Value>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SgfNode {
    pub properties: Vec<Property>,
    /// The first child continues the main line; the others are variations.
    pub children: Vec<NodeId>,
}

impl SgfNode {
    pub fn property(&self, ident: &str) -> Option<&Property> {
        self.properties.iter().find(|p| p.ident == ident)
    }

    /// The first value of `ident`, if the node has it.
    pub fn value(&self, ident: &str) -> Option<&Value> {
        self.property(ident).and_then(|p| p.values.first())
    }

    /// Adds a property with text values (used when building records to write).
    pub fn push(&mut self, ident: &str, values: impl IntoIterator<Item = String>) {
        let position = Position { line: 0, column: 0 };
        let values: Vec<Value> = values
            .into_iter()
            .map(|text| Value {
                bytes: text.into_bytes(),
                position,
            })
            .collect();
        if !values.is_empty() {
            self.properties.push(Property {
                ident: ident.to_string(),
                values,
            });
        }
    }
}

/// One game tree; node 0 is the root.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SgfTree {
    pub nodes: Vec<SgfNode>,
}

impl SgfTree {
    pub const ROOT: NodeId = 0;

    pub fn root(&self) -> &SgfNode {
        &self.nodes[Self::ROOT]
    }

    pub fn node(&self, id: NodeId) -> &SgfNode {
        &self.nodes[id]
    }

    /// Appends a node under `parent` (or as the root when the tree is empty) and returns its id.
    pub fn add_node(&mut self, parent: Option<NodeId>, node: SgfNode) -> NodeId {
        let id = self.nodes.len();
        self.nodes.push(node);
        if let Some(parent) = parent {
            self.nodes[parent].children.push(id);
        }
        id
    }

    /// The main line: the root, then each node's first child.
    pub fn main_line(&self) -> impl Iterator<Item = &SgfNode> + '_ {
        let mut next = (!self.nodes.is_empty()).then_some(Self::ROOT);
        std::iter::from_fn(move || {
            let node = &self.nodes[next?];
            next = node.children.first().copied();
            Some(node)
        })
    }

    /// How many variations branch off anywhere in the tree (nodes with more than one child count each
    /// extra child).
    pub fn variation_count(&self) -> usize {
        self.nodes
            .iter()
            .map(|n| n.children.len().saturating_sub(1))
            .sum()
    }
}

impl SgfTree {
    /// The same tree with every value's position cleared, for comparing a tree with its written copy.
    pub fn without_positions(mut self) -> SgfTree {
        let nowhere = Position { line: 0, column: 0 };
        for node in &mut self.nodes {
            for property in &mut node.properties {
                for value in &mut property.values {
                    value.position = nowhere;
                }
            }
        }
        self
    }
}

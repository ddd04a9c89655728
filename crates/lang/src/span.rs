//! Byte-offset spans into the source text.

/// A half-open byte range into the source.
pub type Span = std::ops::Range<usize>;

/// A value together with the source range it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Spanned<T> {
    pub node: T,
    pub span: Span,
}

impl<T> Spanned<T> {
    pub fn new(node: T, span: Span) -> Self {
        Spanned { node, span }
    }
}

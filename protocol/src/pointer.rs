//! JSON pointers (RFC 6901): the one place that says where in a request something is.

use std::fmt;

/// A JSON pointer built segment by segment, e.g. `/model/parts/0/mesh/elements/12`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pointer(String);

impl Pointer {
    pub fn root() -> Self {
        Pointer(String::new())
    }

    /// The pointer with one more segment; `~` and `/` are escaped as RFC 6901 says.
    pub fn at(&self, segment: impl fmt::Display) -> Self {
        let seg = segment.to_string().replace('~', "~0").replace('/', "~1");
        Pointer(format!("{}/{}", self.0, seg))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Pointer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<Pointer> for String {
    fn from(p: Pointer) -> String {
        p.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_as_rfc6901() {
        let p = Pointer::root().at("parts").at(0).at("a/b~c");
        assert_eq!(p.as_str(), "/parts/0/a~1b~0c");
    }
}

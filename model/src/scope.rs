//! Key scopes and the operations each one allows.

use std::{fmt, str::FromStr};

/// What a key may do. `secret` can do everything; `upload` can add and read files; `read` can only read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Secret,
    Upload,
    Read,
}

/// A management operation that needs a scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    Presign,
    Confirm,
    List,
    Get,
    Delete,
    /// Changing a file's record (its focal point).
    Update,
    TransformUrl,
    Warm,
    /// Listing, creating and revoking the account's keys.
    ManageKeys,
}

impl Operation {
    pub const ALL: [Operation; 9] = {
        use Operation::*;
        [Presign, Confirm, List, Get, Delete, Update, TransformUrl, Warm, ManageKeys]
    };

    /// Its name where the API lists what a key may do (`GET /v1/key`).
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Presign => "presign",
            Operation::Confirm => "confirm",
            Operation::List => "list",
            Operation::Get => "get",
            Operation::Delete => "delete",
            Operation::Update => "update",
            Operation::TransformUrl => "transformUrl",
            Operation::Warm => "warm",
            Operation::ManageKeys => "manageKeys",
        }
    }
}

impl Scope {
    pub fn allows(self, operation: Operation) -> bool {
        use Operation::*;
        match self {
            Scope::Secret => true,
            Scope::Upload => matches!(operation, Presign | Confirm | List | Get),
            Scope::Read => matches!(operation, List | Get),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Secret => "secret",
            Scope::Upload => "upload",
            Scope::Read => "read",
        }
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, thiserror::Error)]
#[error("unknown scope '{0}' (expected secret, upload or read)")]
pub struct UnknownScope(String);

impl FromStr for Scope {
    type Err = UnknownScope;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "secret" => Ok(Scope::Secret),
            "upload" => Ok(Scope::Upload),
            "read" => Ok(Scope::Read),
            other => Err(UnknownScope(other.to_owned())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_nest() {
        assert!(Scope::Secret.allows(Operation::Delete));
        assert!(Scope::Upload.allows(Operation::Confirm));
        assert!(!Scope::Upload.allows(Operation::Delete));
        assert!(!Scope::Upload.allows(Operation::Update) && !Scope::Read.allows(Operation::Update));
        assert!(!Scope::Upload.allows(Operation::TransformUrl));
        assert!(Scope::Read.allows(Operation::List));
        assert!(!Scope::Read.allows(Operation::Presign));
        for s in [Scope::Secret, Scope::Upload, Scope::Read] {
            assert_eq!(s.as_str().parse::<Scope>().unwrap(), s);
        }
    }

    #[test]
    fn every_operation_is_listed_once_by_a_name_of_its_own() {
        use Operation::*;
        for op in [Presign, Confirm, List, Get, Delete, Update, TransformUrl, Warm] {
            // A new operation fails to compile here until ALL and as_str know it.
            assert_eq!(Operation::ALL.iter().filter(|o| **o == op).count(), 1, "{op:?}");
        }
        let mut names: Vec<&str> = Operation::ALL.iter().map(|o| o.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Operation::ALL.len());
    }
}

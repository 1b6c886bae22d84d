// The address of a buffer that cannot be empty, in one place.
//
// A buffer's `baseAddress` is optional because an empty buffer may have
// none. Where the bytes of a fixed-size value, a temporary allocation of a
// positive size or the rest of a loop's `while done < count` are meant, it
// is never nil: `nonEmptyBase` says so at the call site, and traps with a
// message if that is ever wrong (one check of the pointer, the same as the
// `!` it replaces). Where a buffer may be empty and that has an answer, the
// caller says so with a `guard let` instead.

extension UnsafeRawBufferPointer {
    /// The first byte of a buffer known to hold at least one.
    @inline(__always) var nonEmptyBase: UnsafeRawPointer {
        guard let base = baseAddress else { preconditionFailure("an empty buffer has no first byte") }
        return base
    }
}

extension UnsafeMutableRawBufferPointer {
    /// The first byte of a buffer known to hold at least one.
    @inline(__always) var nonEmptyBase: UnsafeMutableRawPointer {
        guard let base = baseAddress else { preconditionFailure("an empty buffer has no first byte") }
        return base
    }
}

extension UnsafeBufferPointer {
    /// The first element of a buffer known to hold at least one.
    @inline(__always) var nonEmptyBase: UnsafePointer<Element> {
        guard let base = baseAddress else { preconditionFailure("an empty buffer has no first element") }
        return base
    }
}

extension UnsafeMutableBufferPointer {
    /// The first element of a buffer known to hold at least one.
    @inline(__always) var nonEmptyBase: UnsafeMutablePointer<Element> {
        guard let base = baseAddress else { preconditionFailure("an empty buffer has no first element") }
        return base
    }
}

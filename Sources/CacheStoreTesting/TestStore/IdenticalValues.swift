import Foundation

/// Whether two `Any?` values are the same value by their bytes, read where they are stored: the
/// check a test store makes before it compares values by the rules of the debug log.
///
/// Most values a test expects are the values the handler wrote, so most comparisons are of equal
/// values; here those cost a few loads instead of opening both existentials (a dynamic-type lookup
/// and value-witness copies of each `Any?`).
///
/// It says `true` only when the two containers hold the same type (the same metadata) and the same
/// bytes of the value: the value's own bytes when it is stored in the container, or the same box
/// when it is stored out of line. Identical bytes are equal by the debug log's rules too (see
/// `isStructurallyEqual`), so `true` never changes a verdict; `false` means "not shown identical"
/// (`0.0` and `-0.0`, two equal strings in separate buffers), and the full comparison decides.
@usableFromInline
enum IdenticalValues: Sendable {
    /// Whether the layout of `Any?` is the one read here: three words of inline value buffer, then the
    /// type's metadata, zero for `nil`. A constant the compiler folds.
    @inlinable static var layoutIsKnown: Bool {
        MemoryLayout<Any?>.size == 4 * MemoryLayout<UInt>.size && MemoryLayout<Any>.size == MemoryLayout<Any?>.size
    }

    /// Whether the `Any?` values at `lhs` and `rhs` are both `nil`, or hold the same type and the same
    /// bytes of the value.
    @usableFromInline
    static func areIdentical(_ lhs: UnsafeRawPointer, _ rhs: UnsafeRawPointer) -> Bool {
        guard layoutIsKnown else { return false }
        let word = MemoryLayout<UInt>.size
        let metadata = lhs.load(fromByteOffset: 3 * word, as: UInt.self)
        guard metadata == rhs.load(fromByteOffset: 3 * word, as: UInt.self) else { return false }
        guard metadata != 0 else { return true }  // both `nil`
        // A value stored in the buffer fills its first `size` bytes; one stored out of line puts its
        // box's address in the first word. At least one word, at most the buffer: either way, equal
        // bytes there are the same value (a value smaller than a word may then differ in the bytes
        // after it, which only sends it to the full comparison).
        let type = unsafeBitCast(metadata, to: Any.Type.self)
        let count = min(max(byteCount(type), word), 3 * word)
        return memcmp(lhs, rhs, count) == 0
    }

    @usableFromInline
    static func byteCount<Value>(_: Value.Type) -> Int {
        MemoryLayout<Value>.size
    }
}

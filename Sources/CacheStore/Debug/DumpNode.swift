import Foundation

/// A value taken apart for display: a leaf of text, or a group of labeled children between brackets.
///
/// Build one with ``init(_:limits:focus:)``; ``ValueDump`` renders it.
package indirect enum DumpNode: Equatable {
    case leaf(String)
    /// `open`, the children separated by commas, then `close`; `omitted` counts children left out.
    case group(open: String, close: String, children: [Child], omitted: Int)

    package struct Child: Equatable {
        package var label: String?
        package var node: DumpNode
    }

    /// Limits that keep the dump of any value small, whatever its size, depth or shape. Whatever is
    /// cut is counted in the dump (`… 900 more`, `(characters 1–120 of 5000000)`).
    package struct Limits: Sendable {
        /// The most children shown per collection or type; the rest are counted.
        package var maxChildren = 100
        /// The deepest level expanded; deeper values show as `…`. It also bounds the recursion of
        /// building and rendering a dump.
        package var maxDepth = 24
        /// The most characters of one string shown: a longer one shows this many around the place
        /// where it differs from the value it is compared with (or its start), with its length.
        package var maxStringLength = 120
        /// About the most characters of the whole dump; past it, what is left is counted as omitted.
        package var maxCharacters = 65_536

        package static let standard = Limits()
    }

    /// Takes `value` apart with `Mirror`, within `limits`.
    ///
    /// Each class instance is shown once: where it appears again (a back-pointer, a shared object), it
    /// shows as `TypeName(↩︎)`.
    ///
    /// - Parameters:
    ///   - value: The value to show.
    ///   - limits: What to cut.
    ///   - focus: Where the value differs from the one it is compared with: a long string on that
    ///     path is shown around the difference.
    package init(_ value: Any, limits: Limits = .standard, focus: ValueDifference? = nil) {
        var builder = DumpBuilder(limits: limits, focus: focus)
        self = builder.make(value, depth: 0, focus: focus.map { $0.path[...] })
    }
}

/// How one value differs from another, for people: the line diff of their dumps, and a note when
/// the difference is one the dumps cannot show (a type, an object's identity, a part cut off).
///
/// The one diff format of the package, in the debug log and in `TestStore`'s failures alike:
///
/// ```
/// − "old line"
/// + "new line"
///   "line in both"
///   (types differ: − Double, + Int)
/// ```
package struct ValueDiff {
    /// The dump of the old (expected) value.
    package let old: [String]
    /// The dump of the new (actual) value.
    package let new: [String]
    /// What the dumps cannot show, in parentheses; `nil` when they show the difference.
    package let note: String?

    /// The diff of `old` and `new`.
    ///
    /// - Parameters:
    ///   - old: The value before, or the expected one.
    ///   - new: The value after, or the actual one.
    ///   - difference: Where they differ, from ``firstDifference(_:_:)``; computed when not given.
    ///   - limits: What each dump may show.
    package init(
        from old: Any?, to new: Any?, difference: ValueDifference? = nil, limits: DumpNode.Limits = .standard
    ) {
        let difference = difference ?? firstDifference(old, new)
        self.old = ValueDump.lines(old, limits: limits, focus: difference)
        self.new = ValueDump.lines(new, limits: limits, focus: difference)
        self.note = difference?.note(dumpsAreEqual: self.old == self.new)
    }

    /// Whether the diff reads well as `old → new` on one line: two short one-line values, no note.
    package var fitsOneLine: Bool {
        old.count == 1 && new.count == 1 && note == nil && old[0].count + new[0].count <= ValueDump.lineWidth
    }

    /// The diff's lines, each a mark (`−`, `+` or a space), a space, `indent`, then the text.
    package func markedLines(indent: String = "") -> [String] {
        let lines = old == new ? old.map(LineDiff.Line.same) : LineDiff.lines(from: old, to: new)
        return lines.map { $0.marked(indent: indent) }
            + (note.map { [LineDiff.Line.same($0).marked(indent: indent)] } ?? [])
    }
}

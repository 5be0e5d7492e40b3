/// A line-by-line difference of two texts, for messages people read.
package enum LineDiff {
    /// One line of a diff.
    package enum Line: Equatable {
        case same(String)
        case removed(String)
        case added(String)
    }

    /// The largest number of line pairs compared with a full longest-common-subsequence table; past
    /// it, the differing middle is shown as all removed then all added, so huge values stay linear.
    package static let fullComparisonLimit = 250_000

    /// The lines of `old` and `new` as kept, removed and added.
    package static func lines(from old: [String], to new: [String]) -> [Line] {
        var prefix = 0
        while prefix < old.count, prefix < new.count, old[prefix] == new[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < old.count - prefix, suffix < new.count - prefix,
            old[old.count - 1 - suffix] == new[new.count - 1 - suffix]
        {
            suffix += 1
        }
        let oldMiddle = Array(old[prefix..<(old.count - suffix)])
        let newMiddle = Array(new[prefix..<(new.count - suffix)])
        let middle =
            oldMiddle.count * newMiddle.count <= fullComparisonLimit
            ? longestCommonSubsequenceDiff(oldMiddle, newMiddle)
            : oldMiddle.map(Line.removed) + newMiddle.map(Line.added)
        return old[..<prefix].map(Line.same) + middle + old[(old.count - suffix)...].map(Line.same)
    }

    private static func longestCommonSubsequenceDiff(_ old: [String], _ new: [String]) -> [Line] {
        guard !old.isEmpty, !new.isEmpty else { return old.map(Line.removed) + new.map(Line.added) }
        // lengths[i][j]: length of the common subsequence of old[i...] and new[j...].
        var lengths = Array(repeating: Array(repeating: 0, count: new.count + 1), count: old.count + 1)
        for i in stride(from: old.count - 1, through: 0, by: -1) {
            for j in stride(from: new.count - 1, through: 0, by: -1) {
                lengths[i][j] =
                    old[i] == new[j] ? lengths[i + 1][j + 1] + 1 : max(lengths[i + 1][j], lengths[i][j + 1])
            }
        }
        var result: [Line] = []
        var i = 0
        var j = 0
        while i < old.count, j < new.count {
            if old[i] == new[j] {
                result.append(.same(old[i]))
                i += 1
                j += 1
            } else if lengths[i + 1][j] >= lengths[i][j + 1] {
                result.append(.removed(old[i]))
                i += 1
            } else {
                result.append(.added(new[j]))
                j += 1
            }
        }
        return result + old[i...].map(Line.removed) + new[j...].map(Line.added)
    }
}

extension LineDiff.Line {
    /// The line with its mark, `−` removed, `+` added, a space kept, then a space and `indent`.
    package func marked(indent: String = "") -> String {
        switch self {
        case .same(let text): "  " + indent + text
        case .removed(let text): "− " + indent + text
        case .added(let text): "+ " + indent + text
        }
    }
}

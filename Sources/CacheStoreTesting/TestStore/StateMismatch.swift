import CacheStore

/// A key whose value after an action differs from the value the test expected.
struct StateMismatch<Key: Hashable & SendableMetatype> {
    let key: Key
    let expected: Any?
    let actual: Any?

    /// The keys where `actual` (what the action changed) differs from `expected`.
    ///
    /// Costs O(keys written by either side): a key neither wrote is unchanged and equal by construction.
    ///
    /// - Parameters:
    ///   - currentValue: A key's value now, for keys only the expectation wrote.
    ///   - currentKeys: Every key that has a value now; read only when the expectation replaced the
    ///     whole state, which is then compared key by key.
    static func find(
        expected: ExpectedState<Key>,
        actual changes: [StateChange<Key>],
        currentValue: (Key) -> Any?,
        currentKeys: () -> Set<Key>
    ) -> [StateMismatch] {
        var changed: [Key: StateChange<Key>] = [:]
        for change in changes { changed[change.key] = change }
        let written: [Key: Any?]
        let isReplacement: Bool
        switch expected {
        case .writes(let writes):
            (written, isReplacement) = (writes, false)
        case .replaced(let values):
            (written, isReplacement) = (values.mapValues { $0 }, true)
        }
        var keys = Set(changed.keys).union(written.keys)
        if isReplacement { keys.formUnion(currentKeys()) }
        return keys.compactMap { key in
            let actual = changed[key].map(\.after) ?? currentValue(key)
            // Unwritten keys keep their value; after a replacement, they are gone.
            let expectedValue: Any? =
                if let value = written[key] { value } else if isReplacement { nil } else {
                    changed[key].map(\.before) ?? actual
                }
            return isEqual(expectedValue, actual)
                ? nil : StateMismatch(key: key, expected: expectedValue, actual: actual)
        }
        .sorted { $0.keyText < $1.keyText }
    }

    var keyText: String { ValueDump.inline(key) }

    /// The key, then the line diff of the two values: `−` expected, `+` actual.
    var diffLines: [String] {
        let (old, new) = (ValueDump.lines(expected), ValueDump.lines(actual))
        if old == new { return ["  \(keyText): \(StateChangeReport.changedBeyondDump)"] }
        let lines = LineDiff.lines(from: old, to: new)
        return ["  \(keyText)"]
            + lines.map { line in
                switch line {
                case .same(let text): "    " + text
                case .removed(let text): "−   " + text
                case .added(let text): "+   " + text
                }
            }
    }

    private static func isEqual(_ lhs: Any?, _ rhs: Any?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil): true
        case (let lhs?, let rhs?): isStructurallyEqual(lhs, rhs)
        default: false
        }
    }
}

extension StateMismatch {
    /// The failure message for `mismatches` after `action`.
    static func message<Action>(after action: Action, _ mismatches: [StateMismatch]) -> String {
        (["State after \(ValueDump.inline(action)) does not match the expectation (− expected, + actual):"]
            + mismatches.flatMap(\.diffLines)
            + ["Fix the expectation closure, or the handler if the state is wrong."])
            .joined(separator: "\n")
    }
}

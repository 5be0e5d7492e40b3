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
    ///   - onlyExpectedKeys: Compare only the keys the expectation wrote (or holds, when it replaced the
    ///     state): the non-exhaustive check.
    static func find(
        expected: ExpectedState<Key>,
        actual changes: [StateChange<Key>],
        currentValue: (Key) -> Any?,
        currentKeys: () -> Set<Key>,
        onlyExpectedKeys: Bool = false
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
        var keys = Set(written.keys)
        if !onlyExpectedKeys {
            keys.formUnion(changed.keys)
            if isReplacement { keys.formUnion(currentKeys()) }
        }
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

    /// The key, then the diff of the two values (see ``ValueDiff``): `−` expected, `+` actual.
    ///
    /// - Parameter limits: What each value's dump may show.
    func diffLines(limits: DumpNode.Limits) -> [String] {
        ["  \(keyText)"] + ValueDiff(from: expected, to: actual, limits: limits).markedLines(indent: "  ")
    }

    private static func isEqual(_ lhs: Any?, _ rhs: Any?) -> Bool {
        firstDifference(lhs, rhs) == nil
    }
}

extension StateMismatch {
    /// The failure message for `mismatches` after `action`, at most about `maxLength` bytes (64 KB by
    /// default) however large the values.
    static func message<Action>(
        after action: Action, _ mismatches: [StateMismatch], maxLength: Int = StateChangeReport.defaultMaxLength
    ) -> String {
        var limits = DumpNode.Limits.standard
        limits.maxCharacters = max(256, maxLength / (2 * max(1, mismatches.count)))
        let fix = "Fix the expectation closure, or the handler if the state is wrong."
        let body = StateChangeReport.cut(
            ["State after \(ValueDump.inline(action)) does not match the expectation (− expected, + actual):"]
                + mismatches.flatMap { $0.diffLines(limits: limits) },
            toBytes: maxLength - fix.utf8.count - 1)
        return body + "\n" + fix
    }
}

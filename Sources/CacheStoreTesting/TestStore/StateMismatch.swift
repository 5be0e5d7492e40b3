import CacheStore

/// A key whose value after an action differs from the value the test expected.
@usableFromInline
struct StateMismatch<Key: Hashable & SendableMetatype> {
    @usableFromInline let key: Key
    @usableFromInline let expected: Any?
    @usableFromInline let actual: Any?

    @inlinable
    init(key: Key, expected: Any?, actual: Any?) {
        self.key = key
        self.expected = expected
        self.actual = actual
    }

    /// The keys where `actual` (what the action changed) differs from `expected`, sorted by key.
    ///
    /// Costs O(keys written by either side): a key neither wrote is unchanged and equal by construction.
    /// Inlinable, so that it specializes for the key type with `TestStore.send`.
    ///
    /// - Parameters:
    ///   - currentValue: A key's value now, for keys only the expectation wrote.
    ///   - currentKeys: Every key that has a value now; read only when the expectation replaced the
    ///     whole state, which is then compared key by key.
    ///   - onlyExpectedKeys: Compare only the keys the expectation wrote (or holds, when it replaced the
    ///     state): the non-exhaustive check.
    @inlinable
    static func find(
        expected: ExpectedState<Key>,
        actual changes: [StateChange<Key>],
        currentValue: (Key) -> Any?,
        currentKeys: () -> Set<Key>,
        onlyExpectedKeys: Bool = false
    ) -> [StateMismatch] {
        switch expected {
        case .writes(let keys, let values):
            return values.withUnsafeBufferPointer { values in
                changes.withUnsafeBufferPointer { changes in
                    findAfterWrites(
                        keys: keys, values: values, actual: changes, currentValue: currentValue,
                        onlyExpectedKeys: onlyExpectedKeys)
                }
            }
        case .replaced(let values):
            return findAfterReplacement(
                by: values, actual: changes, currentValue: currentValue, currentKeys: currentKeys,
                onlyExpectedKeys: onlyExpectedKeys)
        }
    }

    /// ``find(expected:actual:currentValue:currentKeys:onlyExpectedKeys:)`` for an expectation that
    /// wrote `keys` with `values`: each compared with the value the action left, and each other key
    /// the action wrote with its value before.
    ///
    /// Through buffer pointers, whose elements are read in place: an array's subscript returns a copy,
    /// and copies of `Any?` values go through the runtime. Values are copied only into a mismatch.
    @inlinable
    static func findAfterWrites(
        keys: [Key],
        values: UnsafeBufferPointer<Any?>,
        actual changes: UnsafeBufferPointer<StateChange<Key>>,
        currentValue: (Key) -> Any?,
        onlyExpectedKeys: Bool
    ) -> [StateMismatch] {
        // A linear search among up to 16 keys beats hashing; past that, dictionaries.
        let changeIndex =
            changes.count > 16
            ? Dictionary(zip(changes.map { $0.key }, changes.indices), uniquingKeysWith: { $1 }) : nil
        var mismatches: [StateMismatch] = []
        // The address of an action's value before or after: read in place, not copied.
        let before = MemoryLayout<StateChange<Key>>.offset(of: \.before)!
        let after = MemoryLayout<StateChange<Key>>.offset(of: \.after)!
        func value(_ change: Int, at offset: Int) -> UnsafePointer<Any?> {
            (UnsafeRawPointer(changes.baseAddress! + change) + offset).assumingMemoryBound(to: Any?.self)
        }
        // By index, and without `Optional.map`, which copies.
        for position in keys.indices {
            let key = keys[position]
            let expected = values.baseAddress! + position
            if let changed = changeIndex.map({ $0[key] }) ?? changes.lastIndex(where: { $0.key == key }) {
                if !isEqual(expected, value(changed, at: after)) {
                    mismatches.append(
                        StateMismatch(key: key, expected: expected.pointee, actual: changes[changed].after))
                }
            } else {
                var actual = currentValue(key)
                if !isEqual(expected, &actual) {
                    mismatches.append(StateMismatch(key: key, expected: expected.pointee, actual: actual))
                }
            }
        }
        if !onlyExpectedKeys {
            // A write the expectation did not make must leave its key as it was.
            let expectedKeys = keys.count > 16 ? Set(keys) : nil
            for index in changes.indices {
                let key = changes[index].key
                guard !(expectedKeys?.contains(key) ?? keys.contains(key)),
                    !isEqual(value(index, at: before), value(index, at: after))
                else { continue }
                mismatches.append(
                    StateMismatch(key: key, expected: changes[index].before, actual: changes[index].after))
            }
        }
        return mismatches.count > 1 ? mismatches.sorted { $0.keyText < $1.keyText } : mismatches
    }

    /// ``find(expected:actual:currentValue:currentKeys:onlyExpectedKeys:)`` for an expectation that
    /// assigned a whole new cache: every key is compared, and one it lacks must be gone.
    @usableFromInline
    static func findAfterReplacement(
        by values: [Key: Any],
        actual changes: [StateChange<Key>],
        currentValue: (Key) -> Any?,
        currentKeys: () -> Set<Key>,
        onlyExpectedKeys: Bool
    ) -> [StateMismatch] {
        var changed: [Key: StateChange<Key>] = [:]
        for change in changes { changed[change.key] = change }
        var keys = Set(values.keys)
        if !onlyExpectedKeys { keys = keys.union(changed.keys).union(currentKeys()) }
        var mismatches: [StateMismatch] = []
        for key in keys {
            var actual: Any? = if let change = changed[key] { change.after } else { currentValue(key) }
            var expected = values[key]
            if !isEqual(&expected, &actual) {
                mismatches.append(StateMismatch(key: key, expected: expected, actual: actual))
            }
        }
        return mismatches.sorted { $0.keyText < $1.keyText }
    }

    @usableFromInline
    var keyText: String { ValueDump.inline(key) }

    /// The key, then the diff of the two values (see ``ValueDiff``): `−` expected, `+` actual.
    ///
    /// - Parameter limits: What each value's dump may show.
    func diffLines(limits: DumpNode.Limits) -> [String] {
        ["  \(keyText)"] + ValueDiff(from: expected, to: actual, limits: limits).markedLines(indent: "  ")
    }

    /// Whether the two values are equal as the debug log compares them: identical values at once
    /// (see ``IdenticalValues``), others by the full comparison.
    @inlinable
    static func isEqual(_ lhs: UnsafePointer<Any?>, _ rhs: UnsafePointer<Any?>) -> Bool {
        IdenticalValues.areIdentical(UnsafeRawPointer(lhs), UnsafeRawPointer(rhs))
            || haveNoDifference(lhs.pointee, rhs.pointee)
    }

    @usableFromInline
    static func haveNoDifference(_ lhs: Any?, _ rhs: Any?) -> Bool {
        firstDifference(lhs, rhs) == nil
    }
}

/// It holds values of any type.
@available(*, unavailable)
extension StateMismatch: Sendable {}

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

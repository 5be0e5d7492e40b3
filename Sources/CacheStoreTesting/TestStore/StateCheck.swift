import CacheStore

/// What checking one action's state change against its expectation found.
@usableFromInline
struct StateCheck<Key: Hashable & SendableMetatype> {
    /// The keys whose value differs from the expected one, sorted by key.
    @usableFromInline var mismatches: [StateMismatch<Key>] = []
    /// What the expectation closure threw; the state is then not checked.
    @usableFromInline var thrown: (any Error)?
    /// The visible changes the expectation did not check, when a non-exhaustive test store logs them.
    @usableFromInline var skipped: [StateChange<Key>] = []

    /// Whether there is nothing to report or log.
    @inlinable
    var passed: Bool {
        mismatches.isEmpty && thrown == nil && skipped.isEmpty
    }

    /// Checks `changes`, each key an action wrote with its value before and after, against `expected`.
    ///
    /// - Parameters:
    ///   - currentValue: A key's value now, for keys only the expectation wrote.
    ///   - currentKeys: Every key that has a value now (see ``StateMismatch/find(expected:actual:currentValue:currentKeys:onlyExpectedKeys:)``).
    ///   - exhaustivity: Whether to check every change, or only the expected keys.
    @inlinable
    init(
        _ expected: Result<ExpectedState<Key>, any Error>,
        _ changes: [StateChange<Key>],
        currentValue: (Key) -> Any?,
        currentKeys: () -> Set<Key>,
        exhaustivity: Exhaustivity
    ) {
        switch expected {
        case .failure(let error):
            thrown = error
        case .success(let expected):
            mismatches = StateMismatch.find(
                expected: expected, actual: changes, currentValue: currentValue, currentKeys: currentKeys,
                onlyExpectedKeys: exhaustivity != .on)
            if exhaustivity.showsSkippedAssertions { skipped = Self.unchecked(changes, by: expected) }
        }
    }

    /// The visible changes among `changes` whose key `expected` does not mention.
    @usableFromInline
    static func unchecked(_ changes: [StateChange<Key>], by expected: ExpectedState<Key>) -> [StateChange<Key>] {
        let mentioned: Set<Key> =
            switch expected {
            case .writes(let keys, _): Set(keys)
            case .replaced(let values): Set(values.keys)
            }
        return changes.filter { !mentioned.contains($0.key) && $0.isVisible }
    }
}

/// It holds values of any type.
@available(*, unavailable)
extension StateCheck: Sendable {}

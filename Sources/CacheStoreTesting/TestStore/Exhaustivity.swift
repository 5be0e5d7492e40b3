/// How much a ``TestStore`` insists on: everything (the default), or only what the test asserts.
///
/// ```swift
/// let store = TestStore(initialValues: [:], actionHandler: appHandler, dependency: .mock)
/// store.exhaustivity = .off
///
/// store.send(.login(password: "secret")) { state in
///     state.set(value: true, forKey: .isLoggingIn)  // other keys it changed are not checked
/// }
/// await store.receive(.loggedIn(user)) { state in  // skips actions received before it
///     state.set(value: user, forKey: .user)
/// }
/// // effects still running are no failure
/// ```
///
/// ## Topics
///
/// ### Modes
///
/// - ``on``
/// - ``off``
/// - ``off(showSkippedAssertions:)``
public enum Exhaustivity: Sendable, Equatable {
    /// Every key's change is checked, every action received must be received by the test in order,
    /// and an effect still running when the test store ends is a failure.
    case on

    /// Only what the test asserts is checked:
    ///
    /// - `send` and `receive` compare only the keys their expectation closure writes (or, when it
    ///   assigns a whole cache, the keys that cache holds); other changes pass.
    /// - `receive` lets the effects run until the action it names is received; the actions received
    ///   before it are skipped (the store handled them, as the app did). It fails when nothing can
    ///   deliver it.
    /// - Effects still running and actions left when the test store ends are cancelled and dropped,
    ///   not reported.
    ///
    /// - Parameter showSkippedAssertions: Whether to log what was not checked (keys changed beyond
    ///   the expectation, actions skipped, what was left) to ``TestStore/skippedAssertionsOutput``.
    case off(showSkippedAssertions: Bool)

    /// Non-exhaustive, without listing what was skipped: ``off(showSkippedAssertions:)`` with `false`.
    public static let off = Exhaustivity.off(showSkippedAssertions: false)

    /// Whether the test store logs what it did not check.
    @inlinable
    var showsSkippedAssertions: Bool {
        if case .off(showSkippedAssertions: true) = self { true } else { false }
    }

    /// The mode as one word, for ``TestStore``'s atomic setting: 0 on, 1 off, 2 off showing what it
    /// skipped.
    @inlinable
    var word: UInt {
        switch self {
        case .on: 0
        case .off(let shows): shows ? 2 : 1
        }
    }

    /// The mode ``word`` gives.
    @inlinable
    init(word: UInt) {
        self = word == 0 ? .on : .off(showSkippedAssertions: word == 2)
    }
}

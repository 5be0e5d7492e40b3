/// One store's place in the debug log of its store tree: its label, its own log (after `debug` was
/// called on it), and the way up to the log of the store it is scoped from.
///
/// A store's log shows its own actions and those of every store scoped from it, directly or not: a
/// scoped store hands each report to its parent's log, with its writes renamed to the parent's keys
/// (see ``DebugReport/lifted(from:parentKey:)``), and so on up the tree. So a root store's log shows
/// the whole tree, each report labelled with the path of the store that handled the action.
///
/// A scoped store has one from its creation, as its parent may start logging at any time; a root
/// store has none until its first `debug`. So an action that no log wants costs a root store one
/// `nil` check, and a scoped store a look at its tree's ``ActionQueue/hasDebugLog`` until some store
/// of the tree logs. The `var`s are guarded by the tree's turn (see ``ActionQueue``).
@usableFromInline
final class DebugLog<Key: Hashable & SendableMetatype>: @unchecked Sendable {
    /// The store's name in the reports of the logs above it, and its own log's name by default.
    let label: String
    /// Where this store's own log goes, after `debug` was called on it. Guarded by the turn.
    @exclusivity(unchecked) var output: DebugOutput?
    /// The log of the store this one is scoped from, for a scoped store.
    let parent: DebugLogParent<Key>?
    /// The label of the scoped store whose action, forwarded to this store, is being handled now:
    /// its report says so. Set only while a log wants that report, which takes it. Guarded by the turn.
    @exclusivity(unchecked) var forwardedFrom: String?

    @usableFromInline
    init(label: String, parent: DebugLogParent<Key>?) {
        self.label = label
        self.parent = parent
    }

    /// Whether any log wants this store's reports: its own, or one above it. In the turn.
    @usableFromInline
    var isWriting: Bool {
        output != nil || parent?.isWriting() == true
    }

    /// Writes the report of `action`, which made `changes`, to every log that wants it. In the turn.
    @usableFromInline
    func report<Action>(action: Action, changes: [StateChange<Key>]) {
        write(DebugReport(action: ValueDump.inline(action), forwardedFrom: forwardedFrom.take(), changes: changes))
    }

    /// Notes that the next action this store handles was forwarded from its scoped store `label`.
    func noteForwarded(from label: String) {
        if isWriting { forwardedFrom = label }
    }

    /// Tells the parent's log that the action this store hands its parent now is forwarded from it.
    @usableFromInline
    func noteForwarding() {
        parent?.noteForwarded()
    }

    func write(_ report: DebugReport<Key>) {
        if let output {
            output.write(report.text(logLabel: output.label, maxLength: output.maxLength))
        }
        if let parent, parent.isWriting() { parent.write(report) }
    }
}

/// Where a store's own debug reports go, under which name, and about how many bytes one may take.
struct DebugOutput: Sendable {
    /// The name of the log's store in each report's header: `[label] Action: …`.
    let label: String
    let write: @Sendable (String) -> Void
    let maxLength: Int
}

/// How a scoped store's log reaches its parent's, which may not exist yet when the scope is made.
@usableFromInline
struct DebugLogParent<Key: Hashable & SendableMetatype> {
    /// Whether the parent's log, or one above it, is written.
    let isWriting: () -> Bool
    /// Hands a report to the parent's log, renamed to the parent's keys.
    let write: (DebugReport<Key>) -> Void
    /// Tells the parent's log that its next action is forwarded from this scoped store.
    let noteForwarded: () -> Void
}

/// A parent link calls into the parent's engine, in the turn only.
@available(*, unavailable)
extension DebugLogParent: Sendable {}

extension StoreEngine {
    /// How a store scoped from this one, labelled `label`, passes its reports to this store's log.
    ///
    /// - Parameters:
    ///   - label: The scoped store's label.
    ///   - parentKey: The key of this store that a scoped key reads and writes, or `nil` for a key of
    ///     the scoped store's own.
    @usableFromInline
    func debugParent<ScopedKey>(label: String, parentKey: @escaping (ScopedKey) -> Key?)
        -> DebugLogParent<ScopedKey>
    {
        // Captures this engine, as the scoped store keeps its parent anyway, and reads its log in the
        // scoped action's turn, which is this store's too.
        DebugLogParent<ScopedKey>(
            isWriting: { [self] in debugLog?.isWriting == true },
            write: { [self] report in debugLog?.write(report.lifted(from: label, parentKey: parentKey)) },
            noteForwarded: { [self] in if queue.hasDebugLog { debugLog?.noteForwarded(from: label) } })
    }

    /// This store's log, made with the default label when it has none yet. In the turn.
    func existingOrNewDebugLog() -> DebugLog<Key> {
        if let debugLog { return debugLog }
        let log = DebugLog<Key>(label: "CacheStore", parent: nil)
        debugLog = log
        return log
    }
}

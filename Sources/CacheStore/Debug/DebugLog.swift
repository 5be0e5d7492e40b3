/// One store's place in the debug log of its store tree: its own log (after `debug` was called on
/// it), its label, and, for a scoped store, the store it is scoped from.
///
/// A store's log shows its own actions and those of every store scoped from it, directly or not: a
/// scoped store hands each report to its parent, with its writes renamed to the parent's keys
/// (see ``DebugReport/lifted(from:parentKey:)``), and so on up the tree. So a root store's log shows
/// the whole tree, each report labelled with the path of the store that handled the action.
///
/// It is a value held in the engine: making a store with the default label allocates nothing for
/// it, and releasing one checks one `nil`. An action that no log wants costs a look at the tree's
/// ``ActionQueue/hasDebugLog``, which stays `false` until some store of the tree logs. Guarded by
/// the tree's turn (see ``ActionQueue``), as the engine's other `var`s.
@usableFromInline
struct DebugLog<Key: Hashable & SendableMetatype> {
    /// The store this one is scoped from, for a scoped store.
    ///
    /// Not retained: the scoped store's engine keeps its parent store, and with it this engine, in
    /// its `parentStore`, a constant released only with the engine itself.
    @usableFromInline unowned(unsafe) let parent: (any DebugLogParent)?
    /// The store's label, output and forwarding in hand, once it was labelled, logs, or is
    /// forwarded an action while a log is written.
    @usableFromInline var state: DebugLogState?
    /// Whether the store reports the actions its handler handles: not a view store
    /// (``Store/view(_:label:)``), whose actions are reported by the store they are forwarded to.
    @usableFromInline let reportsOwnActions: Bool

    @inlinable
    init() {
        parent = nil
        reportsOwnActions = true
    }

    @inlinable
    init(label: String?, parent: any DebugLogParent, reportsOwnActions: Bool = true) {
        self.parent = parent
        self.reportsOwnActions = reportsOwnActions
        if let label { state = DebugLogState(label: label) }
    }
}

/// What a store's debug log holds once it is written: kept apart, so that a store that never logs
/// does not carry it.
@usableFromInline
final class DebugLogState {
    /// The label the store was given; `nil` for its default (see ``StoreEngine/debugLabel``).
    let label: String?
    /// Where this store's own log goes, after `debug` was called on it.
    var output: DebugOutput?
    /// The label of the scoped store whose action, forwarded to this store, is being handled now:
    /// its report says so. Set only while a log wants that report, which takes it.
    var forwardedFrom: String?

    @usableFromInline
    init(label: String?) {
        self.label = label
    }
}

@available(*, unavailable)
extension DebugLogState: Sendable {}

/// It holds its parent engine, which is not `Sendable`; it belongs to its engine.
@available(*, unavailable)
extension DebugLog: Sendable {}

/// A store's debug log as a store scoped from it sees it: where to hand its reports.
///
/// Every ``StoreEngine`` is one. Its members run in the tree's turn.
@usableFromInline
protocol DebugLogParent: AnyObject {
    associatedtype Key: Hashable & SendableMetatype

    /// Whether this store's log, or one above it, is written.
    var isDebugLogWriting: Bool { get }
    /// Writes `report` to this store's log and to those above it.
    func writeDebugReport(_ report: DebugReport<Key>)
    /// Notes that the next action this store handles was forwarded from its scoped store `label`.
    func noteForwarded(from label: @autoclosure () -> String)
}

/// Where a store's own debug reports go, under which name, and about how many bytes one may take.
struct DebugOutput: Sendable {
    /// The name of the log's store in each report's header: `[label] Action: …`.
    let label: String
    let write: @Sendable (String) -> Void
    let maxLength: Int
}

extension DebugLog {
    /// The label of a scoped store whose action type is `Action`: `given`, else the name of
    /// `Action` (of `Key` for an actionless scope, whose action type is `Void`). Made only when a
    /// report needs it, as naming a type walks the type's metadata.
    @usableFromInline
    static func scopedLabel<Action>(_ given: String?, action: Action.Type) -> String {
        if let given { return given }
        return String(describing: Action.self == Void.self ? Key.self as Any.Type : Action.self)
    }
}

extension StoreEngine: DebugLogParent {
    /// This store's label: the one it was given, else `CacheStore` for a root store, or for a scoped
    /// store the name of its action type (its key type's for an actionless scope).
    var debugLabel: String {
        let label = debugLog.state?.label
        if debugLog.parent == nil { return label ?? "CacheStore" }
        return DebugLog<Key>.scopedLabel(label, action: Action.self)
    }

    @usableFromInline
    var isDebugLogWriting: Bool {
        debugLog.state?.output != nil || debugLog.parent?.isDebugLogWriting == true
    }

    /// This store's log state, made when it first needs one.
    var debugLogState: DebugLogState {
        if let state = debugLog.state { return state }
        let state = DebugLogState(label: nil)
        debugLog.state = state
        return state
    }

    /// Writes the report of `action`, which made `changes`, to every log that wants it.
    @usableFromInline
    func reportToDebugLog(action: Action, changes: [StateChange<Key>]) {
        let forwardedFrom = debugLog.state?.forwardedFrom.take()
        writeDebugReport(DebugReport(action: ValueDump.inline(action), forwardedFrom: forwardedFrom, changes: changes))
    }

    @usableFromInline
    func writeDebugReport(_ report: DebugReport<Key>) {
        if let output = debugLog.state?.output {
            output.write(report.text(logLabel: output.label, maxLength: output.maxLength))
        }
        if let parent = debugLog.parent, parent.isDebugLogWriting { hand(report, to: parent) }
    }

    /// Hands `report` to `parent`'s log, each written key renamed to the parent's key it reads and
    /// writes through this store's scope.
    private func hand<Parent: DebugLogParent>(_ report: DebugReport<Key>, to parent: Parent) {
        guard let scope = state.core as? ScopedCore<Key, Parent.Key> else { return }
        parent.writeDebugReport(report.lifted(from: debugLabel, parentKey: scope.parentKey(for:)))
    }

    @usableFromInline
    func noteForwarded(from label: @autoclosure () -> String) {
        if queue.hasDebugLog, isDebugLogWriting { debugLogState.forwardedFrom = label() }
    }
}

/// One action's report on its way up a store tree's debug logs, in the keys of the log it has reached.
///
/// Made by the store that handled the action, with its own keys; each step up to a parent's log
/// (``lifted(from:parentKey:)``) renames the written keys to the parent's and adds the store's label
/// to the path, so each log renders it in its own store's terms:
///
/// ```
/// [App/settings] Action: .toggleDarkMode
///   ~ .theme: "light" → "dark"
///   + settings/.preview: true
/// ```
@usableFromInline
struct DebugReport<Key: Hashable & SendableMetatype> {
    /// The labels of the stores from the log's store (excluded) down to the one that handled the
    /// action: empty for the log's own store's action.
    var path: [String] = []
    /// The action, rendered.
    let action: String
    /// The label of the scoped store that forwarded the action, when it was forwarded.
    let forwardedFrom: String?
    /// The writes to keys of the log's store.
    var changes: [StateChange<Key>]
    /// The writes to keys that live in a store below the log's (a scope's own keys), each named by
    /// that store's path: `settings/.preview`.
    var keysBelow: [StateChangeReport.Row] = []

    init(action: String, forwardedFrom: String?, changes: [StateChange<Key>]) {
        self.action = action
        self.forwardedFrom = forwardedFrom
        self.changes = changes
    }

    /// This report as the log of the parent store sees it, coming from its scoped store `label`:
    /// each written key renamed to the parent key it reads and writes, or, for a key of the scoped
    /// store's own, named `label/key`.
    func lifted<ParentKey>(from label: String, parentKey: (Key) -> ParentKey?) -> DebugReport<ParentKey> {
        var lifted = DebugReport<ParentKey>(action: action, forwardedFrom: forwardedFrom, changes: [])
        lifted.path = [label] + path
        lifted.keysBelow = keysBelow.map { row in row.named(label + "/" + row.keyText) }
        for change in changes {
            if let key = parentKey(change.key) {
                lifted.changes.append(StateChange(key: key, before: change.before, after: change.after))
            } else {
                lifted.keysBelow.append(StateChangeReport.Row(change).named(label + "/" + change.keyText))
            }
        }
        return lifted
    }

    /// The report as the log named `logLabel` prints it, at most about `maxLength` bytes.
    ///
    /// ```
    /// [App/filter] Action: .select(2)
    ///   + .selectedUser: 2
    /// [App] Action: .refresh (forwarded from App/filter)
    ///   ~ .isLoading: false → true
    /// ```
    func text(logLabel: String, maxLength: Int) -> String {
        let source = ([logLabel] + path).joined(separator: "/")
        var header = "[\(source)] Action: \(action)"
        if let forwardedFrom { header += " (forwarded from \(source)/\(forwardedFrom))" }
        return StateChangeReport.text(
            header: header,
            rows: changes.map(StateChangeReport.Row.init) + keysBelow,
            // A forwarded action follows the report of the scoped action that changed the state.
            whenUnchanged: forwardedFrom == nil ? "(no state change)" : "(no further state change)",
            maxLength: maxLength)
    }
}

/// A report holds the values before and after, of any type; it is made and written in one turn.
@available(*, unavailable)
extension DebugReport: Sendable {}

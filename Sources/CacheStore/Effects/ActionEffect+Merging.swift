import Foundation

extension ActionEffect {
    /// One effect that starts all of `effects`, or `nil` when there are none.
    ///
    /// A single effect is returned as it is. Several are kept apart inside one merged effect, so each
    /// starts (or cancels) under its own id, as if its handler had returned it alone.
    static func merging(_ effects: [ActionEffect]) -> ActionEffect? {
        guard effects.count > 1 else { return effects.first }
        return ActionEffect(id: UUID(), merged: effects)
    }

    private init(id: AnyHashable, merged effects: [ActionEffect]) {
        self.id = id
        self.operation = .merged(effects)
    }
}

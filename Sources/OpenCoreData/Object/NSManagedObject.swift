import OpenPredicate
import OpenStoreCore

/// An object of a managed object context: the values of one instance of an entity, with change
/// tracking, faulting and relationship maintenance.
///
/// ```swift
/// let employee = NSManagedObject(entity: employeeEntity, insertInto: context)
/// employee.setValue("Ada", forKey: "name")
/// try context.save()
/// ```
///
/// Values are read and written by property name (`value(forKey:)`, `setValue(_:forKey:)`), and
/// predicates read objects the same way. Attributes come back as the Swift types Core Data users
/// read (`String`, `Int16`/`Int32`/`Int64`, `Double`, `Float`, `Decimal`, `Bool`, `Date`, `Data`,
/// `UUID`, `URL`); a to-one relationship as the destination object, a to-many one as
/// `Set<NSManagedObject>` (an `NSOrderedSet` when ordered). Setting one side of a relationship
/// updates its inverse.
///
/// **Differences from Apple:** `@NSManaged` needs the Objective-C runtime; typed subclasses
/// declare their properties with `@Managed` instead (see `Managed`). A value of the wrong type
/// stops the process with Apple's reason ("Unacceptable type of value for attribute: …");
/// `setValue(validating:forKey:)` throws instead.
///
/// Not `Sendable`, as in Apple's SDK: an object belongs to its context's queue. Pass its
/// `objectID` to another task and get the object there with `object(with:)`.
/// See [NSManagedObject](https://developer.apple.com/documentation/coredata/nsmanagedobject).
open class NSManagedObject: NSObject, NSFetchRequestResult, KeyValueCodable, PredicateIdentity {
    // An object's storage is touched only on its context's queue (Core Data's confinement), on
    // every fetch and read: dynamic exclusivity checks are left out (`@exclusivity(unchecked)`).
    //
    // A fault of a fetched row holds only what it needs (40 bytes, a 48-byte allocation): the
    // ID's primary key, one word for its entity number, flags and row version (or place in a
    // batch), and one link to everything else (see `ObjectLink`): where its context, entity and
    // ID come from (shared with the context's other objects), alone or inside its fetched row,
    // the block of rows that holds it, its batch, or `ObjectState` (its decoded values, extras,
    // made ID), which objects get when they need it.

    /// The primary key of the object's ID (for a temporary ID, its number), made or not.
    @exclusivity(unchecked) private var identityPrimaryKey: Int64 = 0
    /// The entity number of the object's ID (see `ObjectKey.entityID`), made or not.
    @exclusivity(unchecked) private var identityEntityNumber: UInt16 = 0
    /// Whether the object is a fault, inserted, deleted, … (see `ObjectFlags`).
    @exclusivity(unchecked) private var flags: ObjectFlags
    /// The row version (see `version`), or while a batched fault, its index in its batch's
    /// results (see `batchMember`): a batched fault has no row, so no version.
    @exclusivity(unchecked) private var versionOrBatchIndex: UInt32 = 0
    /// Everything the object references (see `ObjectLink`).
    @exclusivity(unchecked) private(set) var link: ObjectLink

    /// `versionOrBatchIndex` for a version that needs more than 32 bits, kept in the state.
    private static let wideVersionMark = UInt32.max

    /// Creates an object of an entity, and inserts it into `context` if one is given.
    ///
    /// Attributes start at their default values; the object has a temporary ID until it is saved.
    public required init(entity: NSEntityDescription, insertInto context: NSManagedObjectContext?) {
        // An entity that may still change has no layout of its own yet: the object keeps the
        // values (and layout) it was made with. Otherwise it reads the entity's defaults until
        // its first write (see `storedValues`).
        link =
            entity.hasFixedLayout
            ? .entity(entity) : .state(ObjectState(home: .entity(entity), values: entity.defaultValues))
        flags = entity.isKeyPathStandIn ? [.defaultValues, .keyPathStandIn] : .defaultValues
        super.init()
        context?.insert(self)
    }

    /// The object's ID: temporary until its first save.
    ///
    /// A fetched or inserted object's ID is made when first asked for (an inserted object's
    /// temporary ID, and its permanent one after its save): until then the object keeps what
    /// the ID would hold (`identityOrigin`, `identityKey`), which is all its context's registry
    /// compares.
    public internal(set) var objectID: NSManagedObjectID {
        get {
            if case .state(let state) = link, let id = state.id { return id }
            let id: NSManagedObjectID
            if let identityOrigin {
                id = NSManagedObjectID(origin: identityOrigin, key: identityKey)
            } else {
                // An object that was never in a context (one inserted into a context gets its
                // temporary identity as the context registers it).
                id = NSManagedObjectID.temporary(for: entity)
                setIdentity(origin: id.origin, key: id.rowKey)
            }
            ensuredState.id = id
            return id
        }
        set {
            setIdentity(origin: newValue.origin, key: newValue.rowKey)
            ensuredState.id = newValue
        }
    }

    /// Where the object's context, entity and ID come from (see `ObjectHome`), from its link.
    final var home: ObjectHome {
        @inline(__always) get {
            switch link {
            case .entity(let entity): .entity(entity)
            case .base(let base): .base(base)
            case .row(let row): .base(row.base)
            case .block(let block): .base(block.base)
            case .batch(let batch): .base(batch.base)
            case .state(let state): state.home
            }
        }
    }

    /// The object's base (see `HomeBase`); nil while its home is its entity alone.
    final var base: HomeBase? { withBase { $0 } ?? nil }

    /// `body` with the object's base, not retained: the link holds it while `body` runs, as
    /// long as `body` changes nothing of the object (reads on every property access take no
    /// reference this way). Nil while the object's home is its entity alone.
    @inline(__always)
    final func withBase<Result>(_ body: (HomeBase) -> Result) -> Result? {
        let base: Unmanaged<HomeBase>
        switch link {
        case .entity: return nil
        case .base(let held): base = .passUnretained(held)
        case .row(let row): base = .passUnretained(row.base)
        case .block(let block): base = .passUnretained(block.base)
        case .batch(let batch): base = .passUnretained(batch.base)
        case .state(let state):
            guard case .base(let held) = state.home else { return nil }
            base = .passUnretained(held)
        }
        return base._withUnsafeGuaranteedRef(body)
    }

    /// The origin of the object's ID, made or not; nil while it has none.
    final var identityOrigin: IDOrigin? {
        @inline(__always) get { withBase { $0.origin } ?? nil }
    }

    /// The context the object belongs to (see `managedObjectContext`).
    final var context: NSManagedObjectContext? {
        @inline(__always) get { withBase { $0.context } ?? nil }
        set {
            let entity = self.entity
            setHome(
                context: newValue, origin: identityOrigin,
                ownEntity: identityOrigin?.entity(for: identityKey) === entity ? nil : entity)
        }
    }

    /// Whether the object belongs to `context`, found without loading the context (which its
    /// base holds weakly): the bases of one context share its registry.
    @inline(__always)
    final func belongs(to context: NSManagedObjectContext) -> Bool {
        withBase { $0.registry === context.registry } ?? false
    }

    /// Sets the home: the context's shared base for `origin` when the origin gives the object's
    /// entity (`ownEntity` nil), else a base of the object's own (or, with neither a context nor
    /// an origin, the entity alone).
    private func setHome(context: NSManagedObjectContext?, origin: IDOrigin?, ownEntity: NSEntityDescription?) {
        let home: ObjectHome
        if let origin, ownEntity == nil {
            home = .base(context?.homeBase(for: origin) ?? HomeBase(context: nil, origin: origin, entity: nil))
        } else if let ownEntity, context == nil, origin == nil {
            home = .entity(ownEntity)
        } else {
            home = .base(HomeBase(context: context, origin: origin, entity: ownEntity ?? entity))
        }
        switch link {
        case .entity, .base: link = ObjectLink(home)
        case .state(let state): state.home = home
        case .row(let row):
            // A row of the object's own moves with it (a block or a batch is shared by objects of
            // one base: the object keeps its place in one in a state with its new home).
            if case .base(let base) = home {
                link = .row(FetchedRow(base: base, values: row.values, kept: row.kept))
            } else {
                ensuredState.home = home
            }
        case .block, .batch: ensuredState.home = home
        }
    }

    /// Takes the permanent identity an inserted object gets at its save, without making its ID
    /// (`objectID` makes it when asked): `base` is its context's base for the ID's origin, which
    /// gives the object's entity (see `setIdentity(origin:key:)`, which this skips the lookups
    /// of: a save gives 10^5 objects their IDs at once). False, changing nothing, for an object
    /// that links a fetched row or batch (never an inserted one): set `objectID` then.
    final func takePermanentIdentity(_ key: ObjectKey, base: HomeBase) -> Bool {
        switch link {
        case .state(let state):
            state.home = .base(base)
            state.id = nil
        case .entity, .base: link = .base(base)
        case .row, .block, .batch: return false
        }
        identityEntityNumber = UInt16(truncatingIfNeeded: key.entityID)
        identityPrimaryKey = key.primaryKey
        return true
    }

    /// The row key of the object's ID (for a temporary ID, its number), made or not.
    final var identityKey: ObjectKey {
        @inline(__always) get { ObjectKey(entityID: Int(identityEntityNumber), primaryKey: identityPrimaryKey) }
    }

    /// Gives the object the identity of a row of a store (or a temporary one) without making its
    /// ID. The object's entity is then the one `origin` has for the key, unless that is another
    /// description (of another model), which the object keeps beside the origin.
    final func setIdentity(origin: IDOrigin, key: ObjectKey) {
        setIdentity(origin: origin, key: key, context: context)
    }

    /// `setIdentity(origin:key:)`, moving the object into `context` too.
    final func setIdentity(origin: IDOrigin, key: ObjectKey, context: NSManagedObjectContext?) {
        let entity = self.entity
        setHome(context: context, origin: origin, ownEntity: origin.entity(for: key) === entity ? nil : entity)
        identityEntityNumber = UInt16(truncatingIfNeeded: key.entityID)
        identityPrimaryKey = key.primaryKey
        if case .state(let state) = link { state.id = nil }
    }

    /// The row key of the object's permanent ID, made or not; nil while its ID is temporary.
    final var storeKey: ObjectKey? {
        @inline(__always) get {
            guard let identityOrigin, !identityOrigin.isTemporary else { return nil }
            return identityKey
        }
    }

    /// The origin of the object's ID, without making the ID when it has an identity.
    final var idOrigin: IDOrigin {
        @inline(__always) get { identityOrigin ?? objectID.origin }
    }

    /// The object's state beyond a fault's, made on first need (taking over what `link` held).
    private var ensuredState: ObjectState {
        if case .state(let state) = link { return state }
        leaveBlock()
        // A version of more than 32 bits, taken out of the block, made the state.
        if case .state(let state) = link { return state }
        let state = ObjectState(home: home, values: storedValues)
        switch link {
        case .row(let row):
            state.fetchedRow = row.values
            state.kept = row.kept
        case .batch(let batch): state.batch = batch
        case .entity, .base, .state, .block: break
        }
        link = .state(state)
        return state
    }

    /// The layout of the object's values, without making them.
    final var layout: PropertyLayout {
        @inline(__always) get {
            if case .state(let state) = link { return state.values.layout }
            let entityNumber = Int(identityEntityNumber)
            let fromOrigin = withBase { base -> PropertyLayout? in
                guard base.entity == nil, let origin = base.origin else { return nil }
                return origin.layout(forEntityNumber: entityNumber)
            }
            if let fromOrigin, let fromOrigin { return fromOrigin }
            return entity.propertyLayout
        }
    }

    /// Current values, once the object is not a fault (to-many relationships as arrays); while
    /// `valuesArePending`, empty (see `values`). An object that has none of its own reads its
    /// entity's defaults (until its first write, or once a fault, none).
    var storedValues: PropertyValues {
        get {
            if case .state(let state) = link { return state.values }
            let entity = self.entity
            return flags.contains(.defaultValues) ? entity.defaultValues : PropertyValues(layout: entity.propertyLayout)
        }
        _modify { yield &ensuredState.values }
        set { ensuredState.values = newValue }
    }

    /// The object's values become none, and what it kept besides them goes, except `extras`:
    /// the object holds only a fault's fields again when nothing else is left (a made ID goes
    /// too: `objectID` makes an equal one when next asked).
    final func dropValues(keeping extras: ObjectExtras?) {
        flags.remove(.defaultValues)
        guard case .state(let state) = link else { return }
        if extras == nil, let link = state.linkWithoutValues {
            self.link = link
        } else {
            state.values = PropertyValues(layout: state.values.layout)
            state.extras = extras
            state.changed = ChangedKeys()
        }
    }

    /// Names of the properties changed since the last save (or fetch). Made of the object's
    /// `ChangedKeys` when read: paths run per object use `hasChangedKeys`, `isChangedKey(_:)`,
    /// `noteChangedKey(_:)` and `clearChangedKeys()`.
    var changedKeys: Set<String> {
        get {
            guard case .state(let state) = link else { return [] }
            return Set(state.changed.names(layout: state.values.layout))
        }
        set {
            clearChangedKeys()
            for key in newValue { noteChangedKey(key) }
        }
    }

    /// Whether a property changed since the last save (or fetch).
    final var hasChangedKeys: Bool {
        guard case .state(let state) = link else { return false }
        return !state.changed.isEmpty
    }

    /// Whether the property `key` changed since the last save (or fetch).
    final func isChangedKey(_ key: String) -> Bool {
        guard case .state(let state) = link else { return false }
        return state.changed.contains(key, layout: state.values.layout)
    }

    /// Notes that the property `key` changed.
    final func noteChangedKey(_ key: String) {
        let state = ensuredState
        state.changed.insert(key, layout: state.values.layout)
    }

    /// No property counts as changed any more (after a save, a rollback, a merge).
    final func clearChangedKeys() {
        if case .state(let state) = link, !state.changed.isEmpty { state.changed = ChangedKeys() }
    }

    /// What only inserted or changed objects need (see `ObjectExtras`); nil for most objects.
    var extras: ObjectExtras? {
        get {
            guard case .state(let state) = link else { return nil }
            return state.extras
        }
        set {
            if newValue == nil, extras == nil { return }
            ensuredState.extras = newValue
        }
    }

    /// While a fault of a batched fetch whose window is not loaded: where it sits (see `FaultBatch`).
    final var batchMember: FaultBatch.Member? {
        get {
            switch link {
            case .batch(let batch): FaultBatch.Member(batch: batch, index: Int(versionOrBatchIndex))
            case .state(let state): state.batch.map { FaultBatch.Member(batch: $0, index: Int(versionOrBatchIndex)) }
            default: nil
            }
        }
        set {
            if let newValue {
                leaveBlock()
                versionOrBatchIndex = UInt32(truncatingIfNeeded: newValue.index)
                switch link {
                case .base(let base) where newValue.batch.base === base: link = .batch(newValue.batch)
                case .batch(let batch) where newValue.batch.base === batch.base: link = .batch(newValue.batch)
                default: ensuredState.batch = newValue.batch
                }
            } else {
                leaveBatch()
            }
        }
    }

    /// Ends the object's place in a batch, if it has one (its index field goes back to a version).
    private func leaveBatch() {
        switch link {
        case .batch(let batch):
            link = .base(batch.base)
            versionOrBatchIndex = 0
        case .state(let state) where state.batch != nil:
            state.batch = nil
            versionOrBatchIndex = 0
        default: break
        }
    }

    /// The row version the committed values come from (while a fault, that of `fetchedRow`; 0
    /// for a fault with no row). Setting one ends the object's place in a batch: it has its row.
    var version: Int64 {
        get {
            switch link {
            case .batch: return 0
            case .block(let block): return block.rows.versions[Int(versionOrBatchIndex)]
            case .state(let state):
                if state.batch != nil { return 0 }
                if versionOrBatchIndex == Self.wideVersionMark { return state.wideVersion }
            default: break
            }
            return Int64(versionOrBatchIndex)
        }
        set {
            leaveBlock()
            leaveBatch()
            if newValue >= 0, newValue < Int64(Self.wideVersionMark) {
                versionOrBatchIndex = UInt32(truncatingIfNeeded: newValue)
            } else {
                versionOrBatchIndex = Self.wideVersionMark
                ensuredState.wideVersion = newValue
            }
        }
    }

    /// A new fault takes the row fetched for it: `fetchedRow` and `version` set, without the
    /// steps an object with a past needs (leaving a batch, a state to update).
    @inline(__always)
    final func takeFetchedRow(_ values: [StoreValue], version: Int64) {
        guard case .base(let base) = link, version >= 0, version < Int64(Self.wideVersionMark) else {
            fetchedRow = values
            self.version = version
            return
        }
        link = .row(FetchedRow(base: base, values: values))
        versionOrBatchIndex = UInt32(truncatingIfNeeded: version)
    }

    /// `takeFetchedRow` for a row of a block: the object reads its values in the block (whose
    /// base is the new fault's).
    @inline(__always)
    final func takeBlockRow(_ block: BlockLink, row: Int) {
        guard case .base(let base) = link, base === block.base, row < Int(UInt32.max) else {
            fetchedRow = block.rows.values(ofRow: row)
            version = block.rows.versions[row]
            return
        }
        link = .block(block)
        versionOrBatchIndex = UInt32(truncatingIfNeeded: row)
    }

    /// An object reading its row in a block takes a copy of its own (unless the row is about to
    /// be replaced), with the destination it keeps, and its version back where the row's index
    /// was: before anything else changes its link or that field.
    private final func leaveBlock(keepingRow: Bool = true) {
        guard case .block(let block) = link else { return }
        let row = Int(versionOrBatchIndex)
        link =
            keepingRow
            ? .row(FetchedRow(base: block.base, values: block.rows.values(ofRow: row), kept: block.kept(row: row)))
            : .base(block.base)
        version = block.rows.versions[row]
    }

    /// While `valuesArePending`: the destination of the first to-one relationship read, kept
    /// alive by this object as Apple's fired to-one keeps it (see `pendingValue(slot:layout:)`):
    /// beside the object's row (in its block, by row), or in its state.
    final var keptDestination: NSManagedObject? {
        get {
            switch link {
            case .row(let row): row.kept
            case .block(let block): block.kept(row: Int(versionOrBatchIndex))
            case .state(let state): state.kept
            case .entity, .base, .batch: nil
            }
        }
        set {
            switch link {
            case .row(let row): row.kept = newValue
            case .block(let block): block.setKept(newValue, row: Int(versionOrBatchIndex))
            case .state(let state): state.kept = newValue
            case .entity, .base, .batch: if newValue != nil { ensuredState.kept = newValue }
            }
        }
    }

    /// While a fault: the values of the row fetched for it (see `NSManagedObjectContext+RowCache`);
    /// once fired, while `valuesArePending`, the values themselves, read slot by slot. Setting a
    /// row ends the object's place in a batch.
    final var fetchedRow: [StoreValue]? {
        @inline(__always) get {
            switch link {
            case .row(let row): row.values
            case .block(let block): block.rows.values(ofRow: Int(versionOrBatchIndex))
            case .state(let state): state.fetchedRow
            case .entity, .base, .batch: nil
            }
        }
        set {
            if newValue == nil { keptDestination = nil }
            leaveBlock(keepingRow: false)
            switch link {
            case .base(let base):
                if let newValue { link = .row(FetchedRow(base: base, values: newValue)) }
            case .row(let row):
                link = newValue.map { .row(FetchedRow(base: row.base, values: $0)) } ?? .base(row.base)
            case .batch(let batch):
                guard let newValue else { return }
                leaveBatch()
                link = .row(FetchedRow(base: batch.base, values: newValue))
            case .entity, .block:
                if let newValue { ensuredState.fetchedRow = newValue }
            case .state(let state):
                if newValue != nil { leaveBatch() }
                state.fetchedRow = newValue
            }
        }
    }

    /// The fetched row's value at `slot` while the row follows a layout of `count` slots; nil
    /// otherwise. Not inlined: with no call between reading the row and its value, the row is
    /// borrowed rather than retained and released.
    @inline(never)
    final func pendingStoredValue(slot: Int, count: Int) -> StoreValue? {
        switch link {
        case .row(let row): row.values.count == count ? row.values[slot] : nil
        case .block(let block): block.width == count ? block.values[Int(versionOrBatchIndex) &* count &+ slot] : nil
        case .state(let state): state.fetchedRow.flatMap { $0.count == count ? $0[slot] : nil }
        case .entity, .base, .batch: nil
        }
    }

    /// Whether the object links its fetched row and nothing else (see `ObjectLink.row`).
    final var linksFetchedRow: Bool {
        switch link {
        case .row, .block: true
        default: false
        }
    }

    /// Whether the values have not been loaded yet.
    var faulted: Bool {
        @inline(__always) get { flags.contains(.faulted) }
        set { flags.set(.faulted, newValue) }
    }
    /// Whether the object's values are still the fetched row's (`fetchedRow`), decoded only when
    /// something other than a read of an attribute or to-one relationship needs them.
    var valuesArePending: Bool {
        @inline(__always) get { flags.contains(.valuesArePending) }
        set { flags.set(.valuesArePending, newValue) }
    }
    var inserted: Bool {
        get { flags.contains(.inserted) }
        set { flags.set(.inserted, newValue) }
    }
    var deleted: Bool {
        get { flags.contains(.deleted) }
        set { flags.set(.deleted, newValue) }
    }
    /// Whether the object was inserted since its context last announced its changes (see
    /// `ObjectFlags.newInEvent`).
    var isNewInEvent: Bool {
        get { flags.contains(.newInEvent) }
        set { flags.set(.newInEvent, newValue) }
    }
    /// Whether the save going on has called `willSave()` (see `ObjectFlags.willSaveCalled`).
    var willSaveCalled: Bool {
        get { flags.contains(.willSaveCalled) }
        set { flags.set(.willSaveCalled, newValue) }
    }
    /// Whether the object is a candidate of the `willSave()` round going on already.
    var isWillSaveCandidate: Bool {
        get { flags.contains(.willSaveCandidate) }
        set { flags.set(.willSaveCandidate, newValue) }
    }
    /// Whether `prepareForDeletion()` was called for the pending deletion.
    var preparedForDeletion: Bool {
        get { flags.contains(.preparedForDeletion) }
        set { flags.set(.preparedForDeletion, newValue) }
    }
    /// Whether the object's row was found gone when its fault fired, and the object became a
    /// deleted object with no values (see `NSManagedObjectContext.shouldDeleteInaccessibleFaults`).
    final var inaccessible: Bool {
        get { flags.contains(.inaccessible) }
        set { flags.set(.inaccessible, newValue) }
    }
    /// Whether this object only stands in for its class while a Swift key path is named (see
    /// `KeyPathRecorder`): its `@Managed` properties report their keys instead of values.
    final var isKeyPathStandIn: Bool { flags.contains(.keyPathStandIn) }

    /// An object nobody references any more leaves its context's registry, which holds
    /// unchanged objects weakly (see `ObjectRegistry`); this may run on any thread.
    deinit {
        // Through the base's registry, not the context (see `HomeBase`); a registry whose
        // context is gone has nothing for anyone, so leaving it is harmless.
        let key = identityKey, object = Unmanaged.passUnretained(self)
        withBase { base in
            _ = base.withRegistryAndOrigin { registry, origin in registry.remove(object, origin: origin, key: key) }
        }
    }

    /// The registered object for a row of the object's store, found without loading the
    /// context (see `HomeBase`); nil when none is registered (or the object has no context or
    /// no identity).
    final func registeredNeighbour(_ key: ObjectKey) -> NSManagedObject? {
        withBase { base in base.withRegistryAndOrigin { registry, origin in registry[origin, key] } ?? nil } ?? nil
    }

    /// Creates an object of the entity whose `managedObjectClassName` names this class, in a
    /// context whose coordinator's model has it.
    ///
    /// Stops the process with Apple's reason when no entity of the model names the class.
    public convenience init(context: NSManagedObjectContext) {
        guard let entity = Self.entity(in: context) else {
            AppleException.internalInconsistency(
                "An NSManagedObject of class '\(ManagedClassRegistry.qualifiedName(of: Self.self))' must have a valid NSEntityDescription."
            )
        }
        self.init(entity: entity, insertInto: context)
    }

    /// A fetch request for this class's entity, named like the class (as Xcode's generated
    /// `fetchRequest()` names it); calling it also lets contexts find the class by its bare name.
    open class func fetchRequest() -> NSFetchRequest<NSFetchRequestResult> {
        ManagedClassRegistry.register(self)
        return NSFetchRequest(entityName: ManagedClassRegistry.bareName(of: self))
    }

    /// The entity of this class in the context's model: the one whose `managedObjectClassName`
    /// is the class's name, with or without its module.
    static func entity(in context: NSManagedObjectContext) -> NSEntityDescription? {
        context.persistentStoreCoordinator.flatMap { entity(in: $0.managedObjectModel) }
    }

    /// The entity of this class in `model`: the one whose `managedObjectClassName` is the
    /// class's module-qualified name, else its bare name.
    static func entity(in model: NSManagedObjectModel) -> NSEntityDescription? {
        let qualified = ManagedClassRegistry.qualifiedName(of: self)
        let bare = ManagedClassRegistry.bareName(of: self)
        let entities = model.entities
        return entities.first { $0.managedObjectClassName == qualified } ?? entities.first { $0.managedObjectClassName == bare }
    }

    /// A fault for a row of a store: its values load when first read, its ID is made when first
    /// asked for. `entity` is the origin's entity for the key (`origin.entity(for: key)`).
    /// `base` is the context's base for the origin (`NSManagedObjectContext.homeBase(for:)`).
    /// With `block` (whose base is `base`), the fault reads its row `row` there, as
    /// `takeBlockRow(_:row:)` would have it.
    static func fault(
        entity: NSEntityDescription, base: HomeBase, key: ObjectKey, row: Int = 0, of block: BlockLink? = nil
    ) -> NSManagedObject {
        let object = Self(entity: entity, insertInto: nil)
        // A fault, with no values of its own (`dropValues(keeping: nil)`, needed only when the
        // entity's layout was not fixed yet).
        if !object.link.isHomeOnly { object.dropValues(keeping: nil) }
        object.flags.remove(.defaultValues)
        object.flags.insert(.faulted)
        // The identity without `setIdentity(origin:key:)`'s check of the entity (the caller's).
        var linked = false
        if case .state(let state) = object.link {
            state.home = .base(base)
        } else if let block, block.base === base, row < Int(UInt32.max) {
            // As `takeBlockRow(_:row:)` links it, without the base first.
            object.link = .block(block)
            object.versionOrBatchIndex = UInt32(truncatingIfNeeded: row)
            linked = true
        } else {
            object.link = .base(base)
        }
        object.identityEntityNumber = UInt16(truncatingIfNeeded: key.entityID)
        object.identityPrimaryKey = key.primaryKey
        if let block, !linked { object.takeBlockRow(block, row: row) }
        return object
    }

    // MARK: - Identity and state

    /// The object's entity.
    public var entity: NSEntityDescription {
        switch link {
        case .entity(let entity): return entity
        case .state(let state):
            if case .entity(let entity) = state.home { return entity }
        default: break
        }
        let key = identityKey
        // A base without an entity has an origin (see `setHome`).
        let found = withBase { base in base.entity ?? base.origin?.entity(for: key) }
        if let found, let found { return found }
        return NSEntityDescription()
    }

    /// The context the object belongs to; nil once deleted and saved, or never inserted.
    public var managedObjectContext: NSManagedObjectContext? { context }

    /// Whether the object's values have not been loaded yet.
    open var isFault: Bool { faulted }

    /// Whether the object was inserted and not saved yet.
    open var isInserted: Bool { inserted }

    /// Whether a saved object has unsaved changes.
    open var isUpdated: Bool { !inserted && !deleted && hasChangedKeys }

    /// Whether the object is marked for deletion at the next save.
    open var isDeleted: Bool { deleted }

    /// Whether the object is inserted, updated or deleted.
    open var hasChanges: Bool { inserted || deleted || hasChangedKeys }

    /// Whether a property that is saved (not transient) has changed.
    open var hasPersistentChangedValues: Bool {
        changedKeys.contains { !(entity.propertiesByName[$0]?.isTransient ?? true) }
    }

    /// What the object compares as inside predicates: its row key once saved, its ID before.
    package var predicateIdentity: AnyHashable { objectID.predicateIdentity }

    // MARK: - Values

    /// The value of a property: an attribute's value, a to-one relationship's object, a to-many
    /// relationship's `Set<NSManagedObject>` (or `NSOrderedSet`). Reading fires a fault.
    ///
    /// An unknown key stops the process with Apple's `NSUnknownKeyException` reason.
    open func value(forKey key: String) -> Any? {
        // Stored properties by slot: one lookup of the name, no cast.
        guard let (slot, decoding, count) = slotFacts(forKey: key) else { return unslottedValue(forKey: key) }
        willAccessValue(forKey: key)
        defer { didAccessValue(forKey: key) }
        fireFault()
        return loadedValue(slot: slot, decoding: decoding, count: count)
    }

    /// Whether a predicate's `key op constant` test reads this class's fetched integer and
    /// string attributes without boxing them (`scalarTest(forKey:_:)`): when the class does not
    /// override `value(forKey:)`.
    package static var testsScalarValues: Bool { !MethodOverride.valueForKey.isOverridden(by: self) }

    /// A predicate's `key op constant` test of `key` (`ScalarKeyValueCodable`), with the effects
    /// of `value(forKey:)`: a fetched integer or string attribute tested as read from the row,
    /// without boxing it in an `Any`; anything else tested as `value(forKey:)` returns it.
    package final func scalarTest(forKey key: String, _ tests: ScalarTests) -> Bool {
        guard let (slot, decoding, count) = slotFacts(forKey: key) else { return tests.other(value(forKey: key)) }
        willAccessValue(forKey: key)
        defer { didAccessValue(forKey: key) }
        fireFault()
        if valuesArePending, case .attribute(let kind) = decoding, let stored = pendingStoredValue(slot: slot, count: count) {
            // As a `@Managed` property reads them (and `StoreValue.swiftValue(kind:)`: integers
            // clamped to their attribute's width).
            if let integer: Int64 = TypedRead.integer(stored, kind) { return tests.integer(integer) }
            if let string = TypedRead.string(stored, kind) { return tests.string(string) }
        }
        return tests.other(loadedValue(slot: slot, decoding: decoding, count: count))
    }

    /// The value of a stored property once the object is not a fault: what `value(forKey:)`
    /// returns for a slot, between its access hooks.
    @inline(__always)
    final func loadedValue(slot: Int, decoding: PropertyLayout.Decoding, count: Int) -> Any? {
        if valuesArePending, let value = pendingValue(slot: slot, decoding: decoding, count: count) { return value }
        if case .toMany(let relationship) = layout.kinds[slot] { return toManyValue(relationship) }
        return values[slot: slot]
    }

    /// `value(forKey:)` for a key without a slot: a fetched property, a plain stored property of
    /// the class (what an `@objc var` of a subclass is to Apple's key-value coding), or an
    /// unknown key.
    private func unslottedValue(forKey key: String) -> Any? {
        guard let property = entity.propertiesByName[key] else {
            if let plain = plainStoredValue(forKey: key) { return plain }
            AppleException.raise(
                "NSUnknownKeyException",
                reason: "[<\(Swift.type(of: self))> valueForUndefinedKey:]: the entity \(entity.name ?? "") is not "
                    + "key value coding-compliant for the key \"\(key)\".")
        }
        willAccessValue(forKey: key)
        defer { didAccessValue(forKey: key) }
        if let fetched = property as? NSFetchedPropertyDescription { return fetchedValue(fetched) }
        if let relationship = property as? NSRelationshipDescription, relationship.isToMany {
            return toManyValue(relationship)
        }
        return primitiveValue(forKey: key)
    }

    /// The value of the stored property `key` declared by a subclass (not by this class, whose
    /// storage is its own): `.some(nil)` for one that holds nil, nil when there is none.
    private func plainStoredValue(forKey key: String) -> Any?? {
        var mirror: Mirror? = Mirror(reflecting: self)
        while let current = mirror, current.subjectType != NSManagedObject.self {
            if let child = current.children.first(where: { $0.label == key }) {
                return .some(ValueSemantics.unwrapOptional(child.value))
            }
            mirror = current.superclassMirror
        }
        return nil
    }

    /// The value at a key path: each step reads a property (`department.title`), through to-many
    /// relationships as a set of values, with collection operators (`employees.@count`,
    /// `employees.@avg.salary`) as in predicates.
    ///
    /// An unknown key stops the process with Apple's `NSUnknownKeyException` reason.
    open func value(forKeyPath keyPath: String) -> Any? {
        guard !keyPath.isSingleKey else { return value(forKey: keyPath) }
        return NSExpression(forKeyPath: keyPath).expressionValue(with: self, context: nil)
    }

    /// Sets a property's value, records the change, and keeps the inverse relationship in step.
    ///
    /// A value of the wrong type or an unknown key stops the process with Apple's reason;
    /// `setValue(validating:forKey:)` throws instead.
    open func setValue(_ value: Any?, forKey key: String) {
        do {
            try setValue(validating: value, forKey: key)
        } catch {
            AppleException.invalidArgument(error.localizedDescription)
        }
    }

    /// The throwing twin of `setValue(_:forKey:)`.
    ///
    /// **Differences from Apple:** an OpenCoreData addition.
    public func setValue(validating value: Any?, forKey key: String) throws {
        guard let property = entity.propertiesByName[key] else {
            throw CoreDataError.make(
                code: NSManagedObjectValidationError,
                reason: "[<\(Swift.type(of: self))> setValue:forUndefinedKey:]: the entity \(entity.name ?? "") is "
                    + "not key value coding-compliant for the key \"\(key)\".")
        }
        willChangeValue(forKey: key)
        defer { didChangeValue(forKey: key) }
        switch property {
        case let relationship as NSRelationshipDescription:
            try setRelationship(relationship, to: value)
        case let attribute as NSAttributeDescription:
            try setPrimitiveValue(validating: value, for: attribute)
        default:
            throw CoreDataError.make(code: NSManagedObjectValidationError, reason: "The property \(key) cannot be set")
        }
    }

    /// The stored value of a property without change notifications: for a relationship, the
    /// destination object (to-one) or the set of objects (to-many).
    open func primitiveValue(forKey key: String) -> Any? {
        fireFault()
        let layout = self.layout
        guard let slot = layout.slot(named: key) else { return values[key] }
        if valuesArePending, let value = pendingValue(slot: slot, layout: layout) { return value }
        let value = values[slot: slot]
        if case .toMany(let relationship) = layout.kinds[slot],
            ValueSemantics.objectCast(value, to: RelationshipFault.self) != nil
        {
            return members(relationship)
        }
        return value
    }

    /// Sets the stored value of a property without maintaining inverse relationships; the
    /// change is recorded.
    open func setPrimitiveValue(_ value: Any?, forKey key: String) {
        fireFault()
        store(value, forKey: key)
    }

    private func setPrimitiveValue(validating value: Any?, for attribute: NSAttributeDescription) throws {
        fireFault()
        let kind = SchemaLowering.attributeKind(attribute.attributeType)
        var checked = value
        let isNull = value.map(ValueSemantics.isNSNull) ?? false
        if let value, !isNull, kind != .transformable, kind != .undefined {
            do {
                checked = try StoreValue(value, kind: kind, property: attribute.name).swiftValue(kind: kind)
            } catch {
                throw CoreDataError.make(
                    code: NSManagedObjectValidationError,
                    reason: "Unacceptable type of value for attribute: property = \"\(attribute.name)\"; desired type = "
                        + "\(attribute.attributeValueClassName ?? "?"); given type = \(Swift.type(of: value)); value = \(value).")
            }
        }
        store(isNull ? nil : checked, forKey: attribute.name)
    }

    /// Writes a value and records the change with the context.
    func store(_ value: Any?, forKey key: String) {
        recordChange(forKey: key)
        values[key] = value
    }

    /// Records that a property is about to change: its value before the first change of the
    /// event, its name among the changed keys, the object with its context.
    func recordChange(forKey key: String) {
        if !isNewInEvent, eventOldValues[key] == nil {
            eventOldValues[key] = exportedValue(forKey: key) ?? ValueSemantics.null
        }
        noteChangedKey(key)
        context?.objectDidChange(self)
    }

    // MARK: - Change tracking

    /// The changed properties and their new values (`NSNull` for nil), since the last save.
    open func changedValues() -> [String: Any] {
        var changes: [String: Any] = [:]
        for key in changedKeys { changes[key] = exportedValue(forKey: key) ?? ValueSemantics.null }
        return changes
    }

    /// The properties changed since the context last announced its changes
    /// (`processPendingChanges()`, which every `perform` block and save ends with), with the
    /// values they had before (`NSNull` for nil), as Apple's returns old values.
    /// Empty for an object inserted since then: it had no values before this event.
    open func changedValuesForCurrentEvent() -> [String: Any] {
        eventOldValues.filter { !(entity.propertiesByName[$0.key]?.isTransient ?? true) }
    }

    /// The values last saved or fetched, for the given keys (every property for nil); `NSNull`
    /// for nil, relationships as objects.
    open func committedValues(forKeys keys: [String]?) -> [String: Any] {
        fireFault()
        var result: [String: Any] = [:]
        for key in keys ?? entity.properties.map(\.name) {
            guard entity.propertiesByName[key] != nil, !inserted else { continue }
            result[key] = committedExportedValue(forKey: key) ?? ValueSemantics.null
        }
        return result
    }

    // MARK: - Hooks (subclasses override)

    /// Called before a property is read.
    open func willAccessValue(forKey key: String?) {}
    /// Called after a property is read.
    open func didAccessValue(forKey key: String?) {}
    /// Called before a property changes.
    open func willChangeValue(forKey key: String) {}
    /// Called after a property changed.
    open func didChangeValue(forKey key: String) {}
    /// Called when the object is inserted into a context.
    open func awakeFromInsert() {}
    /// Called after the object's values were loaded from a store.
    open func awakeFromFetch() {}
    /// Called after the object's values were replaced by another snapshot of them: a refresh
    /// that kept unsaved changes (`.refresh`), a rollback (`.rollback`), or a merge policy that
    /// resolved a save conflict (`.mergePolicy`). See `NSSnapshotEventType`.
    ///
    /// See [awake(fromSnapshotEvents:)](https://developer.apple.com/documentation/coredata/nsmanagedobject/awake(fromsnapshotevents:)).
    open func awake(fromSnapshotEvents flags: NSSnapshotEventType) {}
    /// Called when the object's context saves, on each inserted, updated and deleted object,
    /// before the save validates them. Changes made here are saved too (and `willSave()` is
    /// called again on the objects they changed, so change a value only when it differs).
    ///
    /// See [willSave()](https://developer.apple.com/documentation/coredata/nsmanagedobject/willsave()).
    open func willSave() {}
    /// Called on each inserted, updated and deleted object after its context saved (for a
    /// deleted object, while `isDeleted` is still true, before it turns into a fault). Changes
    /// made here are saved by the next save.
    ///
    /// See [didSave()](https://developer.apple.com/documentation/coredata/nsmanagedobject/didsave()).
    open func didSave() {}
    /// Called once when a deletion of the object is processed, before its relationships follow
    /// their delete rules: at the end of the `perform` block, `processPendingChanges()` or
    /// `save()` after `delete(_:)`, and for an object a cascade deletes, when the cascade runs.
    ///
    /// See [prepareForDeletion()](https://developer.apple.com/documentation/coredata/nsmanagedobject/preparefordeletion()).
    open func prepareForDeletion() {}
    /// Called before the object's values are dropped and it becomes a fault: by
    /// `refresh(_:mergeChanges:)` (an unchanged object, or `false`), `reset()`, a fetch that
    /// refreshes refetched objects, a batched fetch that releases a window of its objects, and
    /// the save of its deletion.
    ///
    /// See [willTurnIntoFault()](https://developer.apple.com/documentation/coredata/nsmanagedobject/willturnintofault()).
    open func willTurnIntoFault() {}
    /// Called after the object became a fault (see `willTurnIntoFault()`).
    ///
    /// See [didTurnIntoFault()](https://developer.apple.com/documentation/coredata/nsmanagedobject/didturnintofault()).
    open func didTurnIntoFault() {}
    /// Checks the object before a save inserts it: every stored property through
    /// `validateValue(_:forKey:)` (see `NSManagedObject+Validation` for the model's rules); all
    /// the failures are thrown, several as one `NSValidationMultipleErrorsError` with each under
    /// `NSDetailedErrorsKey`. Override to add checks of the whole object, calling `super` first
    /// and combining its error with yours, as Apple asks.
    ///
    /// See [validateForInsert()](https://developer.apple.com/documentation/coredata/nsmanagedobject/validateforinsert()).
    open func validateForInsert() throws { try validateStoredProperties() }

    /// Checks the object before a save writes its changes; the same checks as
    /// `validateForInsert()`.
    ///
    /// See [validateForUpdate()](https://developer.apple.com/documentation/coredata/nsmanagedobject/validateforupdate()).
    open func validateForUpdate() throws { try validateStoredProperties() }

    /// Checks the object before a save deletes it: a relationship whose delete rule is deny must
    /// hold no object that is not deleted too (`NSValidationRelationshipDeniedDeleteError`). A
    /// save calls it after `prepareForDeletion()` and the other delete rules.
    ///
    /// See [validateForDelete()](https://developer.apple.com/documentation/coredata/nsmanagedobject/validatefordelete()).
    open func validateForDelete() throws { try validateDeleteRules() }

    /// Checks a value for a property against the model's rules for it: a value when the property
    /// is not optional, its `validationPredicates`, and a to-many relationship's `minCount` and
    /// `maxCount` (see `NSManagedObject+Validation`). The value is not changed.
    ///
    /// Apple's Core Data then calls a method named `validate<Key>:error:` if the class has one,
    /// which needs the Objective-C runtime. Here a subclass overrides this method instead and
    /// calls its per-key methods itself (the Apple signature of both compiles unchanged):
    ///
    /// ```swift
    /// override func validateValue(_ value: AutoreleasingUnsafeMutablePointer<AnyObject?>, forKey key: String) throws {
    ///     try super.validateValue(value, forKey: key)
    ///     if key == "name" { try validateName(value) }
    /// }
    /// ```
    ///
    /// - Throws: The first rule the value breaks (`NSValidationNumberTooLargeError`, …), with
    ///   `NSValidationObjectErrorKey`, `NSValidationKeyErrorKey` and `NSValidationValueErrorKey`
    ///   in its `userInfo`; `NSManagedObjectValidationError` for a key that is no property.
    ///
    /// **Differences from Apple:** per-key validation methods are called by an override of this
    /// method, not found by name.
    /// See [validateValue(_:forKey:)](https://developer.apple.com/documentation/coredata/nsmanagedobject/validatevalue(_:forkey:)).
    open func validateValue(_ value: AutoreleasingUnsafeMutablePointer<AnyObject?>, forKey key: String) throws {
        guard let property = entity.propertiesByName[key] else {
            throw validationError(
                NSManagedObjectValidationError, key: key, value: nil,
                reason: "\(key) is not a property of the entity \(entity.name ?? "")")
        }
        if let error = modelValidationError(of: Self.unboxed(value.pointee), for: property) { throw error }
    }

    /// Whether `object` is this object: identity, as `NSObject`'s (Apple's documentation reserves
    /// this method and `hash` to Core Data; subclasses must not override them).
    ///
    /// Sets and dictionaries of objects (the save notifications' among them) compare objects
    /// here; the object in `object` is read without the dynamic cast `NSObject`'s method makes
    /// of an `Any?` (see `ExactValue.storedObject(_:)`).
    open override func isEqual(_ object: Any?) -> Bool {
        if let other = ExactValue.storedObject(object) { return other === self }
        return super.isEqual(object)
    }

    /// The object's address, as Apple's `NSObject` hash is; agrees with `isEqual(_:)`. (A set
    /// hashes it again with its seed: `NSObject`'s version already ran it through a `Hasher`.)
    open override var hash: Int { Int(bitPattern: UInt(bitPattern: ObjectIdentifier(self))) }

    /// The object's entity, ID and (if loaded) values.
    open override var description: String {
        let state =
            faulted
            ? "<fault>"
            : "{" + values.sorted { $0.key < $1.key }.map { "\($0.key) = \(describe($0.value))" }.joined(separator: "; ") + "}"
        return "<\(Swift.type(of: self))> (entity: \(entity.name ?? ""); id: \(objectID); data: \(state))"
    }

    private func describe(_ value: Any) -> String {
        switch value {
        case let object as NSManagedObject: return object.objectID.description
        case let objects as [NSManagedObject]: return "<relationship fault: \(objects.count) objects>"
        case let fault as RelationshipFault: return "<relationship fault\(fault.keys.map { ": \($0.count) objects" } ?? "")>"
        default: return "\(value)"
        }
    }
}

/// Managed objects are not `Sendable` (Apple's SDK marks them so too): neither they nor their
/// subclasses may cross tasks; their `objectID`s do.
@available(*, unavailable)
extension NSManagedObject: @unchecked Sendable {}

extension NSManagedObject: ScalarKeyValueCodable {}

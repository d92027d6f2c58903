extension Set {
    /// An empty set with room for `count` elements, its table at most three eighths full once
    /// they are in (`minimumCapacity: count` leaves it up to three quarters full).
    ///
    /// For the sets of objects and IDs a save's notifications carry: a set compares each new
    /// element with every element on its probe path, and for `NSObject`s that is a call to
    /// `isEqual(_:)` with the element boxed as `Any?`. A sparser table meets fewer of them (for
    /// 10^4 new objects, measured: a fifth of a compare an insertion rather than four fifths),
    /// for twice the slots (8 bytes each), dropped with the notification.
    static func sparse(capacity count: Int) -> Set { Set(minimumCapacity: count * 2) }
}

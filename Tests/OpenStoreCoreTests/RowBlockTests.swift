import Foundation
import OpenStoreCore
import Testing

/// `RowBlock`, the rows of a fetch in one allocation: rows go in at `nextRow` and come out by
/// index; freeing the block frees the values of the rows it holds.
@Suite struct RowBlockTests {
    @Test func rowsGoInAndComeOutByIndex() {
        let block = RowBlock(width: 3, rows: 2)
        #expect(block.count == 0 && !block.isFull)
        for (number, name) in ["Ada", "Grace"].enumerated() {
            let row = block.nextRow
            row.initialize(to: .string(name))
            (row + 1).initialize(to: .integer(Int64(number)))
            (row + 2).initialize(to: .null)
            block.endRow(key: ObjectKey(entityID: 1, primaryKey: Int64(10 + number)), version: Int64(number + 1))
        }
        #expect(block.isFull && block.count == 2)
        #expect(block.values(ofRow: 1) == [.string("Grace"), .integer(1), .null])
        #expect(block.values[3] == .string("Grace") && block.values[1] == .integer(0))
        let snapshot = block.snapshot(ofRow: 0)
        #expect(snapshot.key == ObjectKey(entityID: 1, primaryKey: 10) && snapshot.version == 1)
        #expect(snapshot.values == [.string("Ada"), .integer(0), .null])
    }

    @Test func freeingTheBlockReleasesItsValues() {
        var members = (0..<64).map { ObjectKey(entityID: 2, primaryKey: Int64($0)) }
        let address = members.withUnsafeBufferPointer { $0.baseAddress }
        do {
            let block = RowBlock(width: 1, rows: 4)
            block.nextRow.initialize(to: .objects(members))
            block.endRow(key: ObjectKey(entityID: 1, primaryKey: 1), version: 1)
            #expect(block.values(ofRow: 0) == [.objects(members)])
        }
        // The block's copy is gone: the array is uniquely referenced again, so a change is made
        // in place rather than in a copy.
        members[0] = ObjectKey(entityID: 2, primaryKey: 99)
        #expect(members.withUnsafeBufferPointer { $0.baseAddress } == address)
    }
}

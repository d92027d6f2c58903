// Facts about the 24 Xcode model files in shared/realworld/models, read off their XML (entity
// order, parentEntity, relationship attributes, <fetchRequest>, <configuration>, ...) and written
// here as literals. Strings use the forms of `ModelFileFacts` (see there); predicates are
// written as NSPredicate prints the file's predicateString (as Apple's, YES and true print as 1).

extension ModelFileFacts {
    static let realWorldModels: [ModelFileFacts] = [
        ModelFileFacts(
            "models/Core-Data-Editor--iOS_Example.xml",
            entities: [
                "Abstract",
                "ChildAOfAbstract",
                "ChildBOfAbstract",
                "Committee",
                "Event",
                "House",
                "Member",
                "Person",
                "PersonDetail",
                "Pet",
                "Strange",
                "UsedForAutoRepair",
                "ValidationTest",
            ],
            attributeCount: 49,
            abstract: ["Abstract"],
            parents: [
                "ChildAOfAbstract: Abstract",
                "ChildBOfAbstract: Abstract",
            ],
            relationships: [
                "ChildAOfAbstract.autoRepairForA -> UsedForAutoRepair inverse childA cascade min 1 required",
                "ChildBOfAbstract.autoRepairForB -> UsedForAutoRepair inverse childB cascade min 1 required",
                "ChildBOfAbstract.persons -> Person inverse childB to-many ordered cascade min 3 max 10 required",
                "Committee.members -> Member inverse committees to-many",
                "House.orderedInhabitants -> Person inverse house to-many ordered cascade",
                "Member.committees -> Committee inverse members to-many cascade",
                "Person.childB -> ChildBOfAbstract inverse persons",
                "Person.detail -> PersonDetail inverse person cascade",
                "Person.house -> House inverse orderedInhabitants",
                "Person.pets -> Pet inverse owner to-many cascade",
                "PersonDetail.person -> Person inverse detail",
                "Pet.owner -> Person inverse pets min 1",
                "Strange.children -> Strange inverse parent to-many cascade",
                "Strange.parent -> Strange inverse children min 1",
                "UsedForAutoRepair.childA -> ChildAOfAbstract inverse autoRepairForA cascade min 1 required",
                "UsedForAutoRepair.childB -> ChildBOfAbstract inverse autoRepairForB cascade min 1 required",
            ],
            templates: ["FetchRequest: Member"]
        ),
        ModelFileFacts(
            "models/Core-Data-by-Tutorials--BubbleTeaFinder.xml",
            entities: [
                "Category",
                "Location",
                "PriceInfo",
                "Stats",
                "Venue",
            ],
            attributeCount: 16,
            relationships: [
                "Category.venue -> Venue inverse category",
                "Location.venue -> Venue inverse location",
                "PriceInfo.venue -> Venue inverse priceInfo",
                "Stats.venue -> Venue inverse stats",
                "Venue.category -> Category inverse venue",
                "Venue.location -> Location inverse venue",
                "Venue.priceInfo -> PriceInfo inverse venue",
                "Venue.stats -> Stats inverse venue",
            ],
            templates: ["FetchRequest: Venue"]
        ),
        ModelFileFacts(
            "models/CoreDataPlus--SampleModel3.xml",
            entities: [
                "Car",
                "LuxuryCar",
                "Maker",
                "Person",
                "SportCar",
            ],
            attributeCount: 8,
            parents: [
                "LuxuryCar: SportCar",
                "SportCar: Car",
            ],
            relationships: [
                "Car.createdBy -> Maker inverse cars",
                "Car.owner -> Person inverse cars",
                "Car.previousOwners -> Person inverse previousCars to-many",
                "Maker.cars -> Car inverse createdBy to-many",
                "Person.cars -> Car inverse owner to-many",
                "Person.previousCars -> Car inverse previousOwners to-many",
            ],
            uniquenessConstraints: [
                "Car: numberPlate",
                "Maker: name",
                "Person: firstName, lastName",
            ],
            versionIdentifier: "3"
        ),
        ModelFileFacts(
            "models/CoreDataQueryInterface--Developers.xml",
            entities: [
                "Developer",
                "Language",
            ],
            attributeCount: 3,
            relationships: [
                "Developer.languages -> Language inverse developers to-many",
                "Language.developers -> Developer inverse languages to-many",
            ],
            uniquenessConstraints: [
                "Developer: firstName, lastName",
                "Language: name",
            ]
        ),
        ModelFileFacts(
            "models/CoreStore--ColorsDemo.xml",
            entities: ["Palette"],
            attributeCount: 4,
            fetchedProperties: ["Palette.testFetchProperty: Palette"]
        ),
        ModelFileFacts(
            "models/CoreStore--TestsModel.xml",
            entities: [
                "TestEntity1AAA",
                "TestEntity2",
            ],
            attributeCount: 16,
            relationships: [
                "TestEntity1AAA.testToManyUnordered -> TestEntity1AAA inverse testToOne to-many",
                "TestEntity1AAA.testToOne -> TestEntity1AAA inverse testToManyUnordered",
                "TestEntity2.testToManyOrdered -> TestEntity2 inverse testToOne to-many ordered",
                "TestEntity2.testToOne -> TestEntity2 inverse testToManyOrdered",
            ],
            configurations: [
                "Config1: TestEntity1AAA",
                "Config2: TestEntity2",
            ]
        ),
        ModelFileFacts(
            "models/MagicalRecord--TestModel.xml",
            entities: [
                "AbstractRelatedEntity",
                "ConcreteRelatedEntity",
                "EntityWithDifferentClassName",
                "EntityWithoutEntityNameMethodWithASuffix",
                "MappedEntity",
                "SingleEntityRelatedToManyMappedEntitiesUsingMappedPrimaryKey",
                "SingleEntityRelatedToMappedEntityUsingDefaults",
                "SingleEntityRelatedToMappedEntityUsingMappedPrimaryKey",
                "SingleEntityRelatedToMappedEntityWithNestedMappedAttributes",
                "SingleEntityRelatedToMappedEntityWithSecondaryMappings",
                "SingleEntityWithNoRelationships",
                "SingleRelatedEntity",
            ],
            attributeCount: 29,
            abstract: ["AbstractRelatedEntity"],
            parents: ["ConcreteRelatedEntity: AbstractRelatedEntity"],
            relationships: [
                "SingleEntityRelatedToManyMappedEntitiesUsingMappedPrimaryKey.mappedEntities -> MappedEntity to-many cascade",
                "SingleEntityRelatedToMappedEntityUsingDefaults.mappedEntity -> MappedEntity cascade min 1",
                "SingleEntityRelatedToMappedEntityUsingMappedPrimaryKey.mappedEntity -> MappedEntity cascade min 1",
                "SingleEntityRelatedToMappedEntityWithNestedMappedAttributes.mappedEntity -> MappedEntity cascade min 1",
                "SingleEntityRelatedToMappedEntityWithSecondaryMappings.mappedRelationship -> MappedEntity cascade min 1",
                "SingleRelatedEntity.testAbstractToManyRelationship -> AbstractRelatedEntity to-many cascade",
                "SingleRelatedEntity.testAbstractToOneRelationship -> AbstractRelatedEntity cascade min 1",
                "SingleRelatedEntity.testConcreteToManyRelationship -> ConcreteRelatedEntity to-many cascade",
                "SingleRelatedEntity.testConcreteToOneRelationship -> ConcreteRelatedEntity cascade min 1",
            ],
            userInfo: [
                "MappedEntity: relatedByAttribute=mapped",
                "MappedEntity.nestedAttribute: mappedKeyName=attributeValue.nestedValue",
                "MappedEntity.testMappedEntityID: mappedKeyName=id",
                "SingleEntityRelatedToManyMappedEntitiesUsingMappedPrimaryKey: relatedByAttribute=testPrimaryKey",
                "SingleEntityRelatedToManyMappedEntitiesUsingMappedPrimaryKey.mappedEntities: relatedByAttribute=testMappedEntityID",
                "SingleEntityRelatedToMappedEntityUsingMappedPrimaryKey.mappedEntity: mappedKeyName=someRandomAttributeName, relatedByAttribute=testMappedEntityID",
                "SingleEntityRelatedToMappedEntityWithSecondaryMappings.secondaryMappedAttribute: mappedKeyName.1=getting_warmer, mappedKeyName.2=actualMappedKey, mappedKeyName=no_in_use",
                "SingleEntityRelatedToMappedEntityWithSecondaryMappings.mappedRelationship: mappedKeyName.1=almost_there, mappedKeyName.2=actualRelatedObject, mappedKeyName=not_in_use",
                "SingleEntityWithNoRelationships.colorTestAttribute: attributeValueClassName=*Color",
                "SingleEntityWithNoRelationships.dateWithCustomFormat: dateFormat=M/d/yyyy H-mm-ss",
                "SingleEntityWithNoRelationships.mappedStringAttribute: mappedKeyName=mappedAttributeWithStringValue",
                "SingleEntityWithNoRelationships.unixTime13TestAttribute: dateFormat=UnixTime",
                "SingleRelatedEntity.testAbstractToManyRelationship: relatedByAttribute=sampleBaseAttribute",
                "SingleRelatedEntity.testAbstractToOneRelationship: relatedByAttribute=sampleBaseAttribute",
                "SingleRelatedEntity.testConcreteToManyRelationship: relatedByAttribute=sampleConcreteAttribute",
                "SingleRelatedEntity.testConcreteToOneRelationship: relatedByAttribute=sampleConcreteAttribute",
            ]
        ),
        ModelFileFacts(
            "models/MomXML--Model.xml",
            entities: [
                "Client",
                "Commande",
                "Produit",
            ],
            attributeCount: 11,
            relationships: [
                "Client.client_commande -> Commande inverse commande_client",
                "Commande.commande_client -> Client inverse client_commande",
                "Commande.commande_produit -> Produit inverse produit_commande",
                "Produit.produit_commande -> Commande inverse commande_produit",
            ],
            userInfo: [
                "Client: key1=value, key=value",
                "Client.firstname: key=value",
                "Client.id: key1=value, key=value",
                "Commande.commande_produit: key1=value, key=value",
                "Produit: key=value",
                "Produit.produit_commande: key1=value, key=value",
            ]
        ),
        ModelFileFacts(
            "models/PredicateKit--DataModel.xml",
            entities: [
                "Account",
                "Attachment",
                "BillingInfo",
                "IdentifiableData",
                "Note",
                "Profile",
                "User",
                "UserAccount",
            ],
            attributeCount: 15,
            relationships: [
                "Note.attachment -> Attachment",
                "User.billingInfo -> BillingInfo",
                "UserAccount.profiles -> Profile to-many",
            ]
        ),
        ModelFileFacts(
            "models/SwiftGen--Model.xml",
            entities: [
                "ChildEntity",
                "MainEntity",
                "SecondaryEntity",
            ],
            attributeCount: 14,
            parents: ["ChildEntity: MainEntity"],
            relationships: [
                "MainEntity.manyToMany -> SecondaryEntity inverse manyToMany to-many",
                "MainEntity.oneToMany -> SecondaryEntity inverse oneToMany to-many",
                "MainEntity.oneToOne -> SecondaryEntity inverse oneToOne",
                "SecondaryEntity.manyToMany -> MainEntity inverse manyToMany to-many",
                "SecondaryEntity.oneToMany -> MainEntity inverse oneToMany",
                "SecondaryEntity.oneToOne -> MainEntity inverse oneToOne",
            ]
        ),
        ModelFileFacts(
            "models/SwiftGen--Model2.xml",
            entities: [
                "AbstractEntity",
                "AutoClassGen",
                "AutoExtensionGen",
                "ChildEntity",
                "ImpossibleType",
                "MainEntity",
                "NewEntity",
                "SecondaryEntity",
            ],
            attributeCount: 32,
            abstract: ["AbstractEntity"],
            parents: [
                "ChildEntity: MainEntity",
                "NewEntity: AbstractEntity",
            ],
            relationships: [
                "MainEntity.manyToMany -> SecondaryEntity inverse manyToMany to-many",
                "MainEntity.oneToMany -> SecondaryEntity inverse oneToMany to-many ordered",
                "MainEntity.oneToOne -> SecondaryEntity inverse oneToOne",
                "SecondaryEntity.manyToMany -> MainEntity inverse manyToMany to-many",
                "SecondaryEntity.oneToMany -> MainEntity inverse oneToMany",
                "SecondaryEntity.oneToOne -> MainEntity inverse oneToOne",
            ],
            fetchedProperties: ["MainEntity.fetchedProperty: NewEntity where 1 == 1"],
            templates: [
                "DictionaryFetchRequest: MainEntity type 2",
                "ObjectFetchRequest: MainEntity where uuid == $UUID distinct",
                "ObjectIDFetchRequest: MainEntity where oneToOne.name == $NAME OR string == $NEEDLE type 1",
            ],
            configurations: ["Custom: NewEntity"],
            uniquenessConstraints: ["NewEntity: identifier"],
            fetchIndexes: ["NewEntity.byIdentifierIndex: identifier ascending"],
            derivedAttributes: [
                "ChildEntity.canonicalOptionalString = canonical:(optionalString)",
                "ChildEntity.derivedCount = oneToMany.@count",
                "ChildEntity.now = now()",
            ],
            userInfo: [
                "ChildEntity: key=value",
                "MainEntity: key=value",
                "MainEntity.binaryData: key=value",
                "MainEntity.integerEnum: RawType=IntegerEnum, unwrapOptional=true",
                "MainEntity.integerOptionSet: RawType=IntegerOptionSet, nonOptionalInit=true, unwrapOptional=true",
                "MainEntity.stringEnum: RawType=StringEnum",
                "MainEntity.fetchedProperty: key=value",
            ]
        ),
        ModelFileFacts(
            "models/Sync--Ordered.xml",
            entities: [
                "OrderedNote",
                "OrderedUser",
            ],
            attributeCount: 21,
            relationships: [
                "OrderedNote.user -> OrderedUser inverse notes",
                "OrderedUser.notes -> OrderedNote inverse user to-many ordered cascade",
            ],
            userInfo: [
                "OrderedUser.age: sync.remoteKey=age_of_person",
                "OrderedUser.driverIdentifier: sync.remoteKey=driver_identifier_str",
                "OrderedUser.rawSigned: sync.remoteKey=signed",
            ]
        ),
        ModelFileFacts(
            "models/Sync--PropertyMapperModel.xml",
            entities: [
                "Apartment",
                "Attribute",
                "Building",
                "Company",
                "Compatibility",
                "KeyPath",
                "Market",
                "Note",
                "Park",
                "Recursive",
                "Room",
                "User",
            ],
            attributeCount: 54,
            relationships: [
                "Apartment.building -> Building inverse apartments",
                "Apartment.rooms -> Room inverse apartment to-many cascade",
                "Building.apartments -> Apartment inverse building to-many cascade",
                "Building.parks -> Park inverse building to-many cascade",
                "Company.user -> User inverse company",
                "Note.user -> User inverse notes",
                "Park.building -> Building inverse parks",
                "Recursive.recursive -> Recursive inverse recursives",
                "Recursive.recursives -> Recursive inverse recursive to-many cascade",
                "Room.apartment -> Apartment inverse rooms",
                "User.company -> Company inverse user",
                "User.notes -> Note inverse user to-many cascade",
            ],
            userInfo: [
                "Attribute.customTransformerString: sync.valueTransformer=SyncTestValueTransformer",
                "Compatibility.current: sync.remoteKey=customCurrent",
                "Compatibility.old: hyper.remoteKey=customOld",
                "KeyPath.camelCaseDepthOne: sync.remoteKey=camelParent.valueOne",
                "KeyPath.camelCaseDepthTwo: sync.remoteKey=camelParent.depthOne.depthTwo",
                "KeyPath.snakeCaseDepthOne: sync.remoteKey=snake_parent.value_one",
                "KeyPath.snakeCaseDepthTwo: sync.remoteKey=snake_parent.depth_one.depth_two",
                "Market.uniqueId: sync.isPrimaryKey=YES, sync.remoteKey=id",
                "User.age: sync.remoteKey=age_of_person",
                "User.driverIdentifier: sync.remoteKey=driver_identifier_str",
                "User.rawSigned: sync.remoteKey=signed",
            ]
        ),
        ModelFileFacts(
            "models/ZeeQL3--Contacts.xml",
            entities: [
                "Address",
                "Person",
            ],
            attributeCount: 6,
            relationships: [
                "Address.person -> Person inverse addresses",
                "Person.addresses -> Address inverse person to-many ordered max 20",
            ],
            templates: [
                "fetchTheDucks: Person where lastName LIKE \"Duck*\" limit 220 batch 20 distinct",
            ],
            userInfo: [
                "Address.street: columnName=street",
                "Person.addresses: extraInfo=doIt",
            ]
        ),
        ModelFileFacts(
            "models/encrypted-core-data--ClassModel.xml",
            entities: [
                "ChildA",
                "ChildB",
                "Parent",
                "Root",
            ],
            attributeCount: 4,
            abstract: ["Parent"],
            parents: [
                "ChildA: Parent",
                "ChildB: Parent",
            ],
            relationships: [
                "ChildA.multipleOneToMany -> Root inverse multipleOneToManyChildA",
                "ChildB.multipleOneToMany -> Root inverse multipleOneToManyChildB",
                "Parent.manyToManyInverse -> Root inverse manyToMany to-many cascade",
                "Parent.oneToManyInverse -> Root inverse oneToMany",
                "Parent.oneToOneInverse -> Root inverse oneToOne",
                "Parent.oneToOneNilInverse -> Root inverse oneToOneNil",
                "Root.manyToMany -> Parent inverse manyToManyInverse to-many cascade",
                "Root.multipleOneToManyChildA -> ChildA inverse multipleOneToMany to-many",
                "Root.multipleOneToManyChildB -> ChildB inverse multipleOneToMany to-many",
                "Root.oneToMany -> Parent inverse oneToManyInverse to-many cascade",
                "Root.oneToOne -> Parent inverse oneToOneInverse cascade",
                "Root.oneToOneNil -> Parent inverse oneToOneNilInverse",
                "Root.recursiveManyToMany -> Root inverse recursiveManyToManyInverse to-many",
                "Root.recursiveManyToManyInverse -> Root inverse recursiveManyToMany to-many",
            ]
        ),
        ModelFileFacts(
            "models/encrypted-core-data--Model.xml",
            entities: [
                "Account",
                "Comment",
                "Nickname",
                "Post",
                "RootTag",
                "Tag",
                "User",
            ],
            attributeCount: 10,
            abstract: ["RootTag"],
            parents: [
                "Comment: Post",
                "Tag: RootTag",
            ],
            relationships: [
                "Account.transferFromAccounts -> Account inverse transferToAccounts to-many",
                "Account.transferToAccounts -> Account inverse transferFromAccounts to-many",
                "Comment.parent -> Post inverse comments min 1",
                "Nickname.user -> User inverse nicknames",
                "Post.comments -> Comment inverse parent to-many",
                "Post.user -> User inverse posts cascade min 1",
                "Tag.hasUsers -> User inverse hasTags to-many",
                "User.hasTags -> Tag inverse hasUsers to-many",
                "User.nicknames -> Nickname inverse user to-many",
                "User.posts -> Post inverse user to-many cascade",
            ]
        ),
        ModelFileFacts(
            "models/encrypted-core-data--SubEntitiesModel.xml",
            entities: [
                "BaseStatusUpdate",
                "FullJob",
                "Job",
                "JobStatusUpdate",
                "LightweightJob",
            ],
            attributeCount: 3,
            abstract: [
                "BaseStatusUpdate",
                "Job",
            ],
            parents: [
                "FullJob: Job",
                "JobStatusUpdate: BaseStatusUpdate",
                "LightweightJob: Job",
            ],
            relationships: [
                "FullJob.lightweightJob -> LightweightJob inverse fullJob",
                "LightweightJob.fullJob -> FullJob inverse lightweightJob",
            ]
        ),
        ModelFileFacts(
            "models/ensembles--CDEEventStoreModel_2.xml",
            entities: [
                "CDEDataFile",
                "CDEEventRevision",
                "CDEGlobalIdentifier",
                "CDEObjectChange",
                "CDEStoreModificationEvent",
            ],
            attributeCount: 14,
            relationships: [
                "CDEDataFile.objectChange -> CDEObjectChange inverse dataFiles",
                "CDEEventRevision.storeModificationEvent -> CDEStoreModificationEvent inverse eventRevision",
                "CDEEventRevision.storeModificationEventForOtherStores -> CDEStoreModificationEvent inverse eventRevisionsOfOtherStores min 1",
                "CDEGlobalIdentifier.objectChanges -> CDEObjectChange inverse globalIdentifier to-many cascade",
                "CDEObjectChange.dataFiles -> CDEDataFile inverse objectChange to-many cascade",
                "CDEObjectChange.globalIdentifier -> CDEGlobalIdentifier inverse objectChanges min 1 required",
                "CDEObjectChange.storeModificationEvent -> CDEStoreModificationEvent inverse objectChanges min 1 required",
                "CDEStoreModificationEvent.eventRevision -> CDEEventRevision inverse storeModificationEvent cascade min 1 required",
                "CDEStoreModificationEvent.eventRevisionsOfOtherStores -> CDEEventRevision inverse storeModificationEventForOtherStores to-many cascade",
                "CDEStoreModificationEvent.objectChanges -> CDEObjectChange inverse storeModificationEvent to-many cascade",
            ],
            userInfo: [
                "CDEEventRevision.storeModificationEvent: excludeFromMigration=1",
                "CDEEventRevision.storeModificationEventForOtherStores: excludeFromMigration=1",
                "CDEGlobalIdentifier.storeURI: excludeFromMigration=1",
                "CDEGlobalIdentifier.objectChanges: excludeFromMigration=1",
            ],
            versionIdentifier: "2"
        ),
        ModelFileFacts(
            "models/ensembles--CDEStoreModificationEventTestsModel.xml",
            entities: [
                "Child",
                "Parent",
            ],
            attributeCount: 5,
            relationships: [
                "Child.maxedParent -> Parent inverse maxedChildren",
                "Child.orderedParent -> Parent inverse orderedChildren",
                "Child.parent -> Parent inverse child",
                "Child.parentWithSiblings -> Parent inverse children",
                "Child.testFriends -> Parent inverse friends to-many",
                "Parent.child -> Child inverse parent",
                "Parent.children -> Child inverse parentWithSiblings to-many cascade",
                "Parent.friends -> Child inverse testFriends to-many",
                "Parent.inverseRelatedParent -> Parent inverse relatedParent to-many",
                "Parent.maxedChildren -> Child inverse maxedParent to-many cascade max 2",
                "Parent.orderedChildren -> Child inverse orderedParent to-many ordered cascade",
                "Parent.relatedParent -> Parent inverse inverseRelatedParent",
            ]
        ),
        ModelFileFacts(
            "models/mogenerator--MogenSwiftTest.xml",
            entities: [
                "MyEntity",
                "UnorderedToManyDst",
                "UnorderedToManySrc",
            ],
            attributeCount: 4,
            relationships: [
                "UnorderedToManyDst.relationship -> UnorderedToManySrc inverse relationship",
                "UnorderedToManySrc.relationship -> UnorderedToManyDst inverse relationship to-many cascade",
            ],
            templates: ["allUnorderedToManySrcs: UnorderedToManySrc"]
        ),
        ModelFileFacts(
            "models/mogenerator--test.xml",
            entities: [
                "Child",
                "ConcreteEntityWithCustomClass1",
                "ConcreteEntityWithCustomClass2",
                "EntitySansCustomClass",
                "EntitySansCustomClass2",
                "EntityWithBaseClass",
                "Human",
                "Parent",
                "Uncle",
            ],
            attributeCount: 24,
            parents: [
                "Child: Human",
                "ConcreteEntityWithCustomClass1: EntitySansCustomClass2",
                "ConcreteEntityWithCustomClass2: EntitySansCustomClass2",
                "Parent: Human",
                "Uncle: Human",
            ],
            relationships: [
                "Child.parent -> Parent inverse orderedChildren min 1",
                "Human.meaninglessRelationship -> EntitySansCustomClass min 1",
                "Parent.children -> Child to-many cascade",
                "Parent.orderedChildren -> Child inverse parent to-many ordered cascade",
            ],
            templates: [
                "allHumans: Human",
                "byHumanName: Human where humanName == $humanName",
                "byParent: Child where parent == $parent",
                "byParentName: Child where parent.parentName == $parentName",
                "oneByHumanName: Human where humanName == $humanName",
            ],
            userInfo: [
                "Human: additionalHeaderFileName=Gender.h, key with.dots...=value with \"quotes\"",
                "Human.age: mogenerator.readonly=true",
                "Human.gender: attributeValueScalarType=Gender",
                "Uncle: mogenerator.ignore=value",
            ]
        ),
        ModelFileFacts(
            "models/momcom--momcTests.xml",
            entities: [
                "AbstractEntity",
                "Entity",
                "OtherEntity",
                "UnrelatedEntity",
            ],
            attributeCount: 12,
            abstract: ["AbstractEntity"],
            parents: ["Entity: AbstractEntity"],
            relationships: [
                "Entity.otherEntities -> OtherEntity inverse mainEntity to-many min 1 max 9",
                "OtherEntity.mainEntity -> Entity inverse otherEntities min 1",
            ],
            fetchedProperties: ["Entity.yesBooleans: Entity where booleanAttribute == 1"],
            templates: [
                "FetchRequest: Entity where booleanAttribute == 1 AND floatAttribute > 5",
            ],
            configurations: ["UnrelatedConfiguration: UnrelatedEntity"],
            userInfo: [
                "Entity: someKey=randomValue",
                "Entity.binaryAttribute: binaryBar=NO, binaryBaz=MAYBE, binaryFoo=YES",
            ]
        ),
        ModelFileFacts(
            "models/momcom--momcTests2.xml",
            entities: [
                "AbstractEntity",
                "Entity",
                "OtherEntity",
                "UnrelatedEntity",
            ],
            attributeCount: 13,
            abstract: ["AbstractEntity"],
            parents: ["Entity: AbstractEntity"],
            relationships: [
                "Entity.otherEntities -> OtherEntity inverse mainEntity to-many min 1 max 9",
                "OtherEntity.mainEntity -> Entity inverse otherEntities min 1",
            ],
            fetchedProperties: ["Entity.yesBooleans: Entity where booleanAttribute == 1"],
            templates: [
                "FetchRequestDictionaries: Entity where booleanAttribute == 1 AND floatAttribute > 5 type 2 distinct",
                "FetchRequestObjectIDs: Entity where booleanAttribute == 1 AND floatAttribute > 5 type 1",
                "FetchRequestObjects: Entity where booleanAttribute == 1 AND floatAttribute > 5 limit 100 batch 10",
            ],
            configurations: ["UnrelatedConfiguration: UnrelatedEntity"],
            userInfo: [
                "Entity: someKey=randomValue",
                "Entity.binaryAttribute: binaryBar=NO, binaryBaz=MAYBE, binaryFoo=YES",
                "Entity.decimalAttribute: rdar13677527max=4, rdar13677527min=-4",
            ]
        ),
        ModelFileFacts(
            "models/objcio-core-data--Moody.xml",
            entities: [
                "Continent",
                "Country",
                "Mood",
                "Region",
            ],
            attributeCount: 14,
            abstract: ["Region"],
            parents: [
                "Continent: Region",
                "Country: Region",
            ],
            relationships: [
                "Continent.countries -> Country inverse continent to-many required",
                "Country.continent -> Continent inverse countries",
                "Country.moods -> Mood inverse country to-many required",
                "Mood.country -> Country inverse moods",
            ],
            uniquenessConstraints: ["Region: numericISO3166Code, uniquenessDummy"]
        ),
    ]
}

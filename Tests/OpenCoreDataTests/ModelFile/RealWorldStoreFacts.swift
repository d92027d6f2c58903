// Facts about the 21 `*.contents.xml` model files in shared/realworld/stores (the models that
// come with real SQLite stores), read off their XML and written here as literals. Strings use
// the forms of `ModelFileFacts` (see there); predicates are written as NSPredicate prints the
// file's predicateString.

extension ModelFileFacts {
    static let realWorldStores: [ModelFileFacts] = [
        ModelFileFacts(
            "stores/apple-recipes-2010/Recipes.xcdatamodel.contents.xml",
            entities: [
                "Image",
                "Ingredient",
                "Recipe",
                "RecipeType",
            ],
            attributeCount: 10,
            relationships: [
                "Image.recipe -> Recipe inverse image",
                "Ingredient.recipe -> Recipe inverse ingredients",
                "Recipe.image -> Image inverse recipe cascade",
                "Recipe.ingredients -> Ingredient inverse recipe to-many cascade",
                "Recipe.type -> RecipeType inverse recipes",
                "RecipeType.recipes -> Recipe inverse type to-many",
            ]
        ),
        ModelFileFacts(
            "stores/apple-recipes-2018/Recipes.xcdatamodel.contents.xml",
            entities: [
                "Image",
                "Ingredient",
                "Recipe",
                "RecipeType",
            ],
            attributeCount: 10,
            relationships: [
                "Image.recipe -> Recipe inverse image",
                "Ingredient.recipe -> Recipe inverse ingredients",
                "Recipe.image -> Image inverse recipe cascade",
                "Recipe.ingredients -> Ingredient inverse recipe to-many cascade",
                "Recipe.type -> RecipeType inverse recipes",
                "RecipeType.recipes -> Recipe inverse type to-many",
            ]
        ),
        ModelFileFacts(
            "stores/coredataplus-samplemodel-v1/SampleModel.xcdatamodel.contents.xml",
            entities: [
                "Car",
                "ExpensiveSportCar",
                "Person",
                "SportCar",
            ],
            attributeCount: 12,
            parents: [
                "ExpensiveSportCar: SportCar",
                "SportCar: Car",
            ],
            relationships: [
                "Car.owner -> Person inverse cars",
                "Person.cars -> Car inverse owner to-many",
            ],
            uniquenessConstraints: [
                "Car: numberPlate",
                "Person: firstName, lastName",
            ],
            versionIdentifier: "1"
        ),
        ModelFileFacts(
            "stores/coredataplus-samplemodel-v2/SampleModel2.xcdatamodel.contents.xml",
            entities: [
                "Car",
                "LuxuryCar",
                "Person",
                "SportCar",
            ],
            attributeCount: 8,
            parents: [
                "LuxuryCar: SportCar",
                "SportCar: Car",
            ],
            relationships: [
                "Car.owner -> Person inverse cars",
                "Person.cars -> Car inverse owner to-many",
            ],
            uniquenessConstraints: [
                "Car: numberPlate",
                "Person: firstName, lastName",
            ],
            fetchIndexes: ["Car.byMakerAndNumberPlate: maker ascending, numberPlate ascending"],
            versionIdentifier: "2"
        ),
        ModelFileFacts(
            "stores/coredataplus-samplemodel-v2/SampleModel3.xcdatamodel.contents.xml",
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
            "stores/coredataplus-samplemodel3-v1/SampleModel3.xcdatamodel.contents.xml",
            entities: ["User"],
            attributeCount: 2,
            versionIdentifier: "1"
        ),
        ModelFileFacts(
            "stores/coredataplus-samplemodel3-v1/SampleModel3_v2.xcdatamodel.contents.xml",
            entities: [
                "Pet",
                "User",
            ],
            attributeCount: 3,
            relationships: [
                "Pet.owner -> User inverse pet",
                "User.pet -> Pet inverse owner",
            ],
            versionIdentifier: "2"
        ),
        ModelFileFacts(
            "stores/coredataplus-samplemodel3-v1/SampleModel3_v3.xcdatamodel.contents.xml",
            entities: [
                "Pet",
                "User",
            ],
            attributeCount: 2,
            relationships: [
                "Pet.owner -> User inverse pet",
                "User.pet -> Pet inverse owner",
            ],
            versionIdentifier: "3"
        ),
        ModelFileFacts(
            "stores/easylife-todo/EasyLife.xcdatamodel.contents.xml",
            entities: ["TodoItem"],
            attributeCount: 5
        ),
        ModelFileFacts(
            "stores/easylife-todo/EasyLife_1.3.0.xcdatamodel.contents.xml",
            entities: [
                "Project",
                "TodoItem",
            ],
            attributeCount: 7,
            relationships: [
                "Project.todoItem -> TodoItem inverse project to-many",
                "TodoItem.project -> Project inverse todoItem",
            ]
        ),
        ModelFileFacts(
            "stores/easylife-todo/EasyLife_1.5.0.xcdatamodel.contents.xml",
            entities: [
                "Project",
                "TodoItem",
            ],
            attributeCount: 7,
            relationships: [
                "Project.todoItem -> TodoItem inverse project to-many",
                "TodoItem.blockedBy -> TodoItem inverse blocking to-many",
                "TodoItem.blocking -> TodoItem inverse blockedBy to-many",
                "TodoItem.project -> Project inverse todoItem",
            ]
        ),
        ModelFileFacts(
            "stores/jeffreybergier-elementid-migration/v1.0.0.xcdatamodel.contents.xml",
            entities: ["BasicEntity"],
            attributeCount: 1
        ),
        ModelFileFacts(
            "stores/jeffreybergier-elementid-migration/v1.1.0.xcdatamodel.contents.xml",
            entities: ["BasicEntity"],
            attributeCount: 1
        ),
        ModelFileFacts(
            "stores/jeffreybergier-elementid-migration/v1.1.2.xcdatamodel.contents.xml",
            entities: ["BasicEntity"],
            attributeCount: 1
        ),
        ModelFileFacts(
            "stores/jeffreybergier-elementid-migration/v1.2.0.xcdatamodel.contents.xml",
            entities: ["BasicEntity"],
            attributeCount: 1
        ),
        ModelFileFacts(
            "stores/jeffreybergier-elementid-migration/v2.0.0.xcdatamodel.contents.xml",
            entities: ["BasicEntity"],
            attributeCount: 1
        ),
        ModelFileFacts(
            "stores/kodeco-surfjournal-wal/SurfJournalModel.xcdatamodel.contents.xml",
            entities: ["JournalEntry"],
            attributeCount: 6
        ),
        ModelFileFacts(
            "stores/wibosco-migration-posts/v1.xcdatamodel.contents.xml",
            entities: ["Post"],
            attributeCount: 3
        ),
        ModelFileFacts(
            "stores/wibosco-migration-posts/v2.xcdatamodel.contents.xml",
            entities: ["Post"],
            attributeCount: 3
        ),
        ModelFileFacts(
            "stores/wibosco-migration-posts/v3.xcdatamodel.contents.xml",
            entities: [
                "Color",
                "Post",
            ],
            attributeCount: 4,
            relationships: [
                "Color.post -> Post inverse color",
                "Post.color -> Color inverse post required",
            ]
        ),
        ModelFileFacts(
            "stores/wibosco-migration-posts/v4.xcdatamodel.contents.xml",
            entities: [
                "Color",
                "Post",
            ],
            attributeCount: 5,
            relationships: [
                "Color.post -> Post inverse color",
                "Post.color -> Color inverse post required",
            ]
        ),
    ]
}

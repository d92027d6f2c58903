@testable import OpenCoreData
import TestSupport

/// Models of the stores in `shared/realworld/stores`, rebuilt in code as they were when Apple's
/// Core Data wrote each store (their entity version hashes equal the stores' metadata; see
/// `VersionHashTests`). Used where a store has no `contents` XML, or where its XML is not the
/// store's exact model.
enum RealWorldModels {
    // MARK: - Models

    /// Apple's iPhoneCoreDataRecipes sample (2010): to-one relationships with minCount 1,
    /// required attributes, transformable attributes, to-many relationships.
    static func recipesModel() -> NSManagedObjectModel {
        let image = entity("Image"), ingredient = entity("Ingredient"), recipe = entity("Recipe"), type = entity("RecipeType")
        let imageRecipe = relationship("recipe", to: recipe, minCount: 1, maxCount: 1, optional: false)
        let ingredientRecipe = relationship("recipe", to: recipe, minCount: 1, maxCount: 1)
        let recipeImage = relationship("image", to: image, minCount: 1, maxCount: 1)
        let recipeIngredients = relationship("ingredients", to: ingredient, maxCount: 0)
        let recipeType = relationship("type", to: type, minCount: 1, maxCount: 1)
        let typeRecipes = relationship("recipes", to: recipe, maxCount: 0)
        inverses(imageRecipe, recipeImage)
        inverses(ingredientRecipe, recipeIngredients)
        inverses(recipeType, typeRecipes)
        image.properties = [attribute("image", .transformableAttributeType), imageRecipe]
        ingredient.properties = [
            attribute("amount", .stringAttributeType), attribute("displayOrder", .integer16AttributeType, optional: false),
            attribute("name", .stringAttributeType, optional: false), ingredientRecipe,
        ]
        recipe.properties = [
            attribute("instructions", .stringAttributeType), attribute("name", .stringAttributeType),
            attribute("overview", .stringAttributeType), attribute("prepTime", .stringAttributeType),
            attribute("thumbnailImage", .transformableAttributeType), recipeImage, recipeIngredients, recipeType,
        ]
        type.properties = [attribute("name", .stringAttributeType), typeRecipes]
        let model = NSManagedObjectModel()
        model.entities = [image, ingredient, recipe, type]
        return model
    }

    /// CoreDataPlus's SampleModel version 1 (2024): single-table inheritance three levels deep,
    /// uniqueness constraints, transient attributes, an attribute preserved on deletion.
    static func sampleModelV1() -> NSManagedObjectModel {
        let car = entity("Car"), sportCar = entity("SportCar"), expensive = entity("ExpensiveSportCar"),
            person = entity("Person")
        let owner = relationship("owner", to: person, maxCount: 1)
        let cars = relationship("cars", to: car, maxCount: 0)
        inverses(owner, cars)
        car.properties = [
            attribute("color", .transformableAttributeType),
            attribute("currentDrivingSpeed", .integer64AttributeType, transient: true),
            attribute("maker", .stringAttributeType), attribute("markedForDeletionAsOf", .dateAttributeType),
            attribute("model", .stringAttributeType), attribute("numberPlate", .stringAttributeType, optional: false),
            owner,
        ]
        car.uniquenessConstraints = [["numberPlate"]]
        expensive.properties = [attribute("isLimitedEdition", .booleanAttributeType)]
        person.properties = [
            attribute("firstName", .stringAttributeType),
            attribute("id", .UUIDAttributeType, optional: false, preservedOnDeletion: true),
            attribute("isDriving", .booleanAttributeType, optional: false, transient: true),
            attribute("lastName", .stringAttributeType), attribute("updatedAt", .dateAttributeType, optional: false),
            cars,
        ]
        person.uniquenessConstraints = [["firstName", "lastName"]]
        car.subentities = [sportCar]
        sportCar.subentities = [expensive]
        let model = NSManagedObjectModel()
        model.entities = [car, expensive, person, sportCar]
        return model
    }

    /// CoreDataPlus's SampleModel2 version 1, built in code there too (2024): an abstract root,
    /// a derived attribute, an unbounded `maxCount`, counts on to-many relationships, fetched
    /// properties (which do not count).
    static func sampleModel2V1() -> NSManagedObjectModel {
        let writer = entity("Writer"), author = entity("Author"), book = entity("Book"), novel = entity("GraphicNovel"),
            page = entity("Page"), feedback = entity("Feedback")
        writer.isAbstract = true
        writer.properties = [attribute("age", .integer16AttributeType, optional: false)]

        let books = relationship("books", to: book, maxCount: .max)
        let bookAuthor = relationship("author", to: author, minCount: 1, maxCount: 1, optional: false)
        let pages = relationship("pages", to: page, minCount: 1, maxCount: 10_000, optional: false)
        let pageBook = relationship("book", to: book, minCount: 1, maxCount: 1, optional: false)
        inverses(books, bookAuthor)
        inverses(pages, pageBook)

        let feedbacks = NSFetchedPropertyDescription()
        feedbacks.name = "feedbacks"
        author.properties = [
            attribute("alias", .stringAttributeType, optional: false), attribute("siteURL", .URIAttributeType), feedbacks,
            books,
        ]
        author.uniquenessConstraints = [["alias"]]

        let pagesCount = NSDerivedAttributeDescription()
        pagesCount.name = "pagesCount"
        pagesCount.attributeType = .integer64AttributeType
        pagesCount.derivationExpression = NSExpression(format: "pages.@count")
        book.properties = [
            attribute("uniqueID", .UUIDAttributeType, optional: false), attribute("title", .stringAttributeType, optional: false),
            attribute("price", .decimalAttributeType, optional: false),
            attribute("cover", .transformableAttributeType, optional: false),
            attribute("publishedAt", .dateAttributeType, optional: false), pagesCount, bookAuthor, pages,
        ]
        book.uniquenessConstraints = [["uniqueID"]]
        novel.properties = [attribute("isBlackAndWhite", .booleanAttributeType, optional: false)]
        page.properties = [
            attribute("isBookmarked", .booleanAttributeType, optional: false),
            attribute("number", .integer32AttributeType, optional: false),
            attribute("content", .transformableAttributeType, optional: false), pageBook,
        ]
        feedback.properties = [
            attribute("authorAlias", .stringAttributeType, optional: false),
            attribute("bookID", .UUIDAttributeType, optional: false), attribute("comment", .stringAttributeType),
            attribute("rating", .doubleAttributeType, optional: false),
        ]
        writer.subentities = [author]
        book.subentities = [novel]
        let model = NSManagedObjectModel()
        model.entities = [writer, author, book, novel, page, feedback]
        return model
    }

    /// CoreDataPlus's SampleModel2 version 2: version 1 without the author's `siteURL`, and the
    /// book's `cover` renamed `frontCover` (renaming identifier `cover`). The source also has a
    /// fetch index on the author's alias that the store was written without.
    static func sampleModel2V2() -> NSManagedObjectModel {
        let model = sampleModel2V1()
        if let author = model.entitiesByName["Author"] {
            author.properties = author.properties.filter { $0.name != "siteURL" && $0.entity === author }
        }
        if let cover = model.entitiesByName["Book"]?.attributesByName["cover"] {
            cover.name = "frontCover"
            cover.renamingIdentifier = "cover"
        }
        return model
    }

    /// EasyLife 1.5.0 (2017): a reflexive many-to-many relationship pair.
    static func easyLifeModel() -> NSManagedObjectModel {
        let project = entity("Project"), item = entity("TodoItem")
        let todoItem = relationship("todoItem", to: item, maxCount: 0)
        let itemProject = relationship("project", to: project, maxCount: 1)
        let blockedBy = relationship("blockedBy", to: item, maxCount: 0)
        let blocking = relationship("blocking", to: item, maxCount: 0)
        inverses(todoItem, itemProject)
        inverses(blockedBy, blocking)
        project.properties = [attribute("name", .stringAttributeType), attribute("priority", .integer16AttributeType), todoItem]
        item.properties = [
            attribute("date", .dateAttributeType), attribute("done", .booleanAttributeType),
            attribute("name", .stringAttributeType), attribute("notes", .stringAttributeType),
            attribute("repeats", .integer16AttributeType), blockedBy, blocking, itemProject,
        ]
        let model = NSManagedObjectModel()
        model.entities = [project, item]
        return model
    }

    /// Apple's CoreDataBooks sample (fw 320), whose only model file is the pre-Xcode-4 binary
    /// `elements`: author and title required, copyright optional (found by matching the store's
    /// hash; the `contents` column that file's committer added by hand is not in the model).
    static func coreDataBooksModel() -> NSManagedObjectModel {
        let book = entity("Book")
        book.properties = [
            attribute("author", .stringAttributeType, optional: false), attribute("copyright", .dateAttributeType),
            attribute("title", .stringAttributeType, optional: false),
        ]
        let model = NSManagedObjectModel()
        model.entities = [book]
        return model
    }

    /// RestKit's Twitter example (fw 419), also only an `elements` file: the to-one `user` has
    /// minCount 1 as in other models of that era (found by matching the store's hashes).
    static func twitterModel() -> NSManagedObjectModel {
        let tweet = entity("Tweet"), user = entity("User")
        let tweetUser = relationship("user", to: user, minCount: 1, maxCount: 1)
        let userStatuses = relationship("status", to: tweet, maxCount: 0)
        inverses(tweetUser, userStatuses)
        tweet.properties = [
            attribute("createdAt", .dateAttributeType), attribute("inReplyToScreenName", .stringAttributeType),
            attribute("isFavorited", .booleanAttributeType), attribute("statusID", .integer64AttributeType),
            attribute("text", .stringAttributeType), attribute("urlString", .stringAttributeType), tweetUser,
        ]
        user.properties = [
            attribute("name", .stringAttributeType), attribute("screenName", .stringAttributeType),
            attribute("userID", .integer64AttributeType), userStatuses,
        ]
        let model = NSManagedObjectModel()
        model.entities = [tweet, user]
        return model
    }
}

import FloorPlan
import Foundation

// floor-yams PLAN: prints the URL of the plan's step `one`.
guard CommandLine.arguments.count == 2, let url = planURL(CommandLine.arguments[1]) else {
    print("usage: floor-yams PLAN (a plan with a step `one`)")
    exit(2)
}
print(url)

print("reqplan 0.1.0")

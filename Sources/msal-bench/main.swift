print("msal-bench: no scenarios yet")

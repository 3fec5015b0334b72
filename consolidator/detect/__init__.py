"""Pure detectors: memories in, findings out. Nothing here touches a file."""

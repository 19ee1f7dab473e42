"""Rule systems that live in the tests folder alone: each package here registers itself on import
(tests/conftest.py imports them all before collection), so every test that walks the registered rule
systems (the contract test, the panel's forms, the API document) sees them too."""

"""The ask loop's steps: each works on one question's state with the tools it is given."""

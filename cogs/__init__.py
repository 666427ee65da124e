"""Slash-command features, one module each: parse -> load -> rules -> save -> render."""

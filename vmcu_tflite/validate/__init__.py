"""vmcu-validate: build the generated C for a target, run it, compare with the reference and TFLite Micro."""

#!/usr/bin/env python3
"""A variant of a test stand-in: this file's name picks the stand-in and the variant (README.md beside it)."""

import os
import sys

sys.dont_write_bytecode = True  # leave no __pycache__ beside the stand-ins
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
stand_in = __import__(os.path.basename(__file__).split("--")[0])  # fake_sci or fake_source_list, beside this file
sys.exit(stand_in.main(sys.argv))

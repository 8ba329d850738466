"""Generated from proto/; regenerate with tools/gen_proto.py."""

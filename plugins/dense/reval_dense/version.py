"""The plugin's version, in a module of its own so that its modules need not import the
package root (which imports them). A test checks it against the installed metadata."""

__version__ = "0.1.0"

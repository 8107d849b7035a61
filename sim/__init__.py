"""sim: statistical simulation of tile-laying board games for balance work."""

__version__ = "0.1.0"

"""Strategies (bots) for the games of `sim`, one subpackage per game."""

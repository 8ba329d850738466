"""Regression verdicts: is the current run worse than its baseline, and is it noise?"""

"""Secrets in memory text: credential formats and assigned values, found so no report, index or
request carries one.
"""

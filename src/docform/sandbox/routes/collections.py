"""(endpoints to be written)"""

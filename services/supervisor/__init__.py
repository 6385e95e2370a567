"""The supervisor: starts the processes of one installation, watches them and stops them (`boxedin up`)."""

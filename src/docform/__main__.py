from docform.cli import main

main()
